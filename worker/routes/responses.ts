// POST /v1/responses: OpenAI's Responses API on the chat path. The request's items, tools and
// fields are translated to a chat turn (responses/translate.ts) and run by chat/turn.ts, the same
// session, plan, splices and agent loop as /v1/chat/completions; the answer goes back as Responses
// output items, JSON or the Responses event stream. previous_response_id names a stored response:
// its session (the id carries it) and the conversation up to it, so the client sends only its new
// input. GET and DELETE /v1/responses/:id answer within the caller's tenant; an unknown id, or one
// of another tenant, is the same 404. Errors take OpenAI's shape, with the field as `param`.

import type { AgentResult } from "../core/agent.ts";
import type { ChatMessage } from "../core/chat.ts";
import { ToolsearchError } from "../core/errors.ts";
import { json, readJsonText, route, type RouteContext } from "../http.ts";
import { SESSION_HEADER } from "../chat/conversation.ts";
import { streamTurn } from "../chat/stream.ts";
import { knownTools, memberJson } from "../chat/tool-set-cache.ts";
import { chatTurn, type ChatTurnBody } from "../chat/turn.ts";
import { responseEvents } from "../responses/events.ts";
import { echoJson, outputAsChat, outputItems, responseObject, searchItems } from "../responses/respond.ts";
import { newResponseId, sessionOfResponse } from "../responses/shapes.ts";
import { badField, chatMessages, chatToolChoice, chatTools, upstreamFields } from "../responses/translate.ts";
import { SessionClient } from "../session/client.ts";
import type { ApprovalAsked } from "../session/call-end.ts";
import { answerApprovals, withApprovalRequests } from "../responses/approvals.ts";
import { MAX_THREAD_BYTES } from "../session/response-store.ts";
import { CHAT_MAX_BODY_BYTES, parseChatHeaders } from "../wire/chat.ts";
import { parseResponsesBody } from "../wire/responses.ts";

/** A session that does not exist, as nothing: the caller words the refusal. */
function noSession(e: unknown): null {
  if (e instanceof ToolsearchError && e.code === "not_found") return null;
  throw e;
}

async function create(c: RouteContext): Promise<Response> {
  let options = parseChatHeaders(c.request.headers);
  // tools sent before (the same text) are not parsed again: their set's cache has them
  const { value, member } = await readJsonText(c.request, CHAT_MAX_BODY_BYTES, knownTools("responses"));
  const body = parseResponsesBody(value);
  const previous = body.previous_response_id ?? null;
  let history: ChatMessage[] = [];
  if (previous) {
    const sid = sessionOfResponse(previous);
    // an id of another tenant (or a forged one) names no session: the same refusal as an unknown id
    const thread = sid ? await SessionClient.of(c, sid).responseThread(previous).catch(noSession) : null;
    if (!sid || !thread) throw badField("previous_response_id", `response "${previous.slice(0, 80)}" does not exist`);
    const named = options[SESSION_HEADER];
    if (named && named !== sid) throw badField("previous_response_id", `belongs to another session than ${SESSION_HEADER}`);
    options = { ...options, [SESSION_HEADER]: sid };
    if ("tooLong" in thread)
      throw new ToolsearchError(
        "payload_too_large",
        `previous_response_id: the conversation it continues holds at least ${thread.tooLong} bytes, over the ${MAX_THREAD_BYTES}-byte bound of a replayed chain; send the input yourself, or start a new conversation`,
      );
    history = thread.messages;
  }
  // checked before anything is created or stored: a refused request leaves nothing behind
  const calls = new Set(history.flatMap((m) => (m.tool_calls ?? []).map((t) => t.id)));
  // a person's answers to approval requests: decided, and the calls they answer run (responses/approvals.ts)
  const session = options[SESSION_HEADER] && previous ? SessionClient.of(c, options[SESSION_HEADER]) : null;
  const input = chatMessages(await answerApprovals(c, session, history, body.input ?? []), calls);
  const messages: ChatMessage[] = [
    ...(body.instructions ? [{ role: "system" as const, content: body.instructions }] : []),
    ...history,
    ...input,
  ];
  if (!messages.length) throw badField("input", "required");
  const { tools, names, unsupported } = chatTools(body.tools ?? []);
  const hostedSearch = tools.some((t) => t.type === "tool_search");
  const chatBody: ChatTurnBody = {
    ...upstreamFields(body, tools.length > 0),
    model: body.model,
    messages,
    tools,
    tool_choice: chatToolChoice(body.tool_choice),
  };
  // the chat tools are chatTools() of the raw member: the same text, the same tools
  const raw = tools.length ? member("tools") : undefined;
  const asked: ApprovalAsked[] = [];
  const turn = await chatTurn(c, chatBody, options, {
    toolsKey: raw === undefined ? undefined : { surface: "responses", raw, value: value.tools },
    approvals: asked,
  });
  // tools nothing here can run (hosted web_search, custom tools): left out, and said so
  if (unsupported.length) turn.headers["x-toolsearch-ignored-tools"] = unsupported.join(",");
  const meta = {
    id: newResponseId(turn.headers[SESSION_HEADER]!),
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    previous,
    store: body.store !== false,
  };
  const finish = async (result: AgentResult) => {
    const searched = hostedSearch ? searchItems(turn.loaded, names, meta.id) : [];
    const calls = outputItems(result.message, meta.id, names, searched);
    // a call that waits for a yes is an approval request; the stored conversation keeps the call
    const output = withApprovalRequests(calls, asked);
    const response = responseObject(body, meta, result, output);
    // stored without its tools (the store keeps none: they would cross the RPC only to be dropped)
    if (meta.store) await turn.session.putResponse({ response: { ...response, tools: [] }, messages: [...input, ...outputAsChat(calls)] });
    return response;
  };
  // the same tools text echoes the same JSON: made once per cached tool set, not per answer
  const echoed = body.tools ?? [];
  const echo = echoJson(echoed, () =>
    raw === undefined ? JSON.stringify(echoed) : memberJson("responses", raw, () => JSON.stringify(echoed)),
  );
  if (!body.stream) {
    const result = await turn.run();
    const headers = { "content-type": "application/json; charset=utf-8", ...turn.headers, "x-toolsearch-hops": String(result.hops) };
    return new Response(echo(await finish(result)), { headers });
  }
  return streamTurn(turn, (write) => responseEvents(write, { started: () => responseObject(body, meta, null, []), finish }, echo));
}

/** The stored response `id` in the caller's tenant, or the one 404. */
async function stored(c: RouteContext): Promise<{ session: SessionClient; id: string }> {
  const id = c.params.id!;
  const sid = sessionOfResponse(id);
  if (!sid) throw notFound(id);
  return { session: SessionClient.of(c, sid), id };
}

const notFound = (id: string) => new ToolsearchError("not_found", `response ${id.slice(0, 80)} does not exist`);

async function get(c: RouteContext): Promise<Response> {
  const { session, id } = await stored(c);
  const response = await session.response(id);
  if (!response) throw notFound(id);
  return json(response);
}

async function remove(c: RouteContext): Promise<Response> {
  const { session, id } = await stored(c);
  if (!(await session.deleteResponse(id))) throw notFound(id);
  return json({ id, object: "response", deleted: true });
}

/** OpenAI's error shape: message, type, param (the field a `field: rule` message names), code. */
function openaiError(err: ToolsearchError): Response {
  const own: { type?: unknown; param?: unknown; code?: unknown } = err.toJSON().error;
  const param = /^([A-Za-z_][\w.-]*): /.exec(err.message)?.[1] ?? null;
  const type = err.status >= 500 ? "server_error" : err.status === 404 ? "not_found_error" : "invalid_request_error";
  return json(
    { error: { message: err.message, type: own.type ?? type, param: own.param ?? param, code: own.code ?? err.code } },
    err.status,
  );
}

export const responsesRoutes = [
  route("POST", "/v1/responses", create, openaiError),
  route("GET", "/v1/responses/:id", get, openaiError),
  route("DELETE", "/v1/responses/:id", remove, openaiError),
];
