// POST /v1/messages: Anthropic's Messages API on the chat path, deferral implemented here for any
// model. The request is translated to a chat turn (messages/request.ts: messages, tools as the
// deferral shapes decide, the conversation's session) and run by chat/turn.ts, the same session,
// plan, splices and agent loop as /v1/chat/completions and /v1/responses; the answer goes back as
// a Messages object or Anthropic's event stream. Anthropic's regex tool search is answered here
// (messages/search.ts), its bm25 one by the Worker's toolSearch; both are reported as server tool
// blocks. POST /v1/messages/count_tokens counts what the upstream would be sent. Errors take
// Anthropic's shape (messages/errors.ts) through the one error handler, a bad or missing key too.

import { json, readJsonText, route, type RouteContext } from "../http.ts";
import { streamTurn } from "../chat/stream.ts";
import { knownTools, type ToolsKey } from "../chat/tool-set-cache.ts";
import { chatTurn } from "../chat/turn.ts";
import { countTokens } from "../messages/count.ts";
import { anthropicErrorResponse } from "../messages/errors.ts";
import { messageEvents, type ThinkingRelay } from "../messages/events.ts";
import { prepareTurn } from "../messages/request.ts";
import { contentBlocks, messageObject, messagesUsage, newMessageId, searchBlocks } from "../messages/respond.ts";
import { regexAnswer, searchReports } from "../messages/search.ts";
import { ToolsearchError } from "../core/errors.ts";
import { settings } from "../settings.ts";
import { anthropicCaller, anthropicRequest } from "../messages/upstream.ts";
import { CHAT_MAX_BODY_BYTES, parseChatHeaders } from "../wire/chat.ts";
import { parseCountTokensBody, parseMessagesBody, parseMessagesHeaders, type MessagesHeaders } from "../wire/messages.ts";

/** The upstream a request uses: the Anthropic one when configured, unless the request chooses chat. */
function upstreamKind(c: RouteContext, headers: MessagesHeaders): "anthropic" | "chat" {
  const configured = settings(c.env).anthropic !== null;
  const asked = headers["x-toolsearch-upstream"];
  if (asked === "anthropic" && !configured)
    throw new ToolsearchError("bad_request", "x-toolsearch-upstream: no Anthropic upstream is configured (ANTHROPIC_BASE_URL)");
  return asked ?? (configured ? "anthropic" : "chat");
}

/** Headers, body and upstream of a Messages request, checked and translated before anything is created. */
async function prepareRequest<B extends Parameters<typeof prepareTurn>[0]>(c: RouteContext, parseBody: (v: unknown) => B) {
  const headers = parseMessagesHeaders(c.request.headers);
  const chatOptions = parseChatHeaders(c.request.headers);
  // tools sent before (the same text) are not parsed again: their set's cache has them
  const { value, member } = await readJsonText(c.request, CHAT_MAX_BODY_BYTES, knownTools("messages"));
  const body = parseBody(value);
  const upstream = upstreamKind(c, headers);
  // a refused request leaves nothing behind
  const prepared = prepareTurn(body, headers, chatOptions, upstream);
  // the chat tools follow from the raw member alone unless the client searches its own (which
  // tools it gets then depends on the messages' tool references)
  const raw = body.tools?.length && !prepared.plan.ownSearch ? member("tools") : undefined;
  const toolsKey: ToolsKey | undefined = raw === undefined ? undefined : { surface: "messages", raw, value: value.tools };
  return { headers, body, upstream, prepared, toolsKey };
}

async function create(c: RouteContext): Promise<Response> {
  const { headers, body, upstream, prepared, toolsKey } = await prepareRequest(c, parseMessagesBody);
  const { plan } = prepared;
  const regex = regexAnswer(plan);
  // a streaming client gets each round's thinking as the upstream sends it
  const relay: ThinkingRelay = {};
  const turn = await chatTurn(c, prepared.body, prepared.options, {
    load: plan.load,
    withoutCatalog: prepared.withoutCatalog,
    answer: regex.answer,
    toolsKey,
    ...(upstream === "anthropic" ? { callModel: anthropicCaller(c, body, headers, (e) => relay.on?.(e)) } : {}),
  });
  turn.headers["x-toolsearch-upstream"] = upstream;
  if (plan.ignored.length) turn.headers["x-toolsearch-ignored-tools"] = plan.ignored.join(",");
  const meta = { id: newMessageId(), model: body.model };
  const finish = (result: Parameters<typeof contentBlocks>[0]) => {
    const searched = searchBlocks(searchReports(plan, turn.searches, regex.log), meta.id);
    return messageObject(meta, result, contentBlocks(result, searched));
  };
  if (!body.stream) {
    const result = await turn.run();
    return json(finish(result), 200, { ...turn.headers, "x-toolsearch-hops": String(result.hops) });
  }
  const started = () => ({
    ...meta,
    type: "message" as const,
    role: "assistant" as const,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: messagesUsage(null),
  });
  return streamTurn(turn, (write, begin) => messageEvents(write, { started, finish }, begin, relay));
}

async function count(c: RouteContext): Promise<Response> {
  const { headers, body, upstream, prepared } = await prepareRequest(c, parseCountTokensBody);
  const counted = await countTokens(c, prepared, upstream === "anthropic" ? anthropicRequest(body, headers) : undefined);
  return json({ input_tokens: counted.tokens }, 200, { "x-toolsearch-upstream": upstream, "x-toolsearch-count": counted.how });
}

export const messagesRoutes = [
  route("POST", "/v1/messages", create, anthropicErrorResponse, true),
  route("POST", "/v1/messages/count_tokens", count, anthropicErrorResponse, true),
];
