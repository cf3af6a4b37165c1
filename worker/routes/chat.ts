// POST /v1/chat/completions: OpenAI's Chat Completions, with tool search run server-side. The turn
// itself (session, plan for the client's tools, splices, the agent loop) is chat/turn.ts, shared
// with /v1/responses; this file speaks Chat Completions: request checks, a completion as JSON, or
// SSE in OpenAI's chunk format (chat/stream.ts owns the stream's plumbing).

import type { AgentResult } from "../core/agent.ts";
import type { ToolsearchError } from "../core/errors.ts";
import { json, readJsonText, route, type RouteContext } from "../http.ts";
import { streamTurn } from "../chat/stream.ts";
import { chatTurn, type Progress } from "../chat/turn.ts";
import { knownTools } from "../chat/tool-set-cache.ts";
import { CHAT_MAX_BODY_BYTES, parseChatBody, parseChatHeaders } from "../wire/chat.ts";

async function chat(c: RouteContext): Promise<Response> {
  const options = parseChatHeaders(c.request.headers);
  // tools sent before (the same text) are not parsed again: their set's cache has them
  const { value, member } = await readJsonText(c.request, CHAT_MAX_BODY_BYTES, knownTools("chat"));
  const body = parseChatBody(value);
  const raw = body.tools?.length ? member("tools") : undefined;
  const toolsKey = raw === undefined ? undefined : { surface: "chat", raw, value: value.tools };
  const turn = await chatTurn(c, body, options, { toolsKey });
  if (!body.stream) {
    const result = await turn.run();
    const { id, created, model } = turn.progress.meta;
    const completion = {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: result.message, finish_reason: result.finishReason, logprobs: null }],
      usage: result.usage,
    };
    return json(completion, 200, { ...turn.headers, "x-toolsearch-hops": String(result.hops) });
  }
  const includeUsage = !!body.stream_options?.include_usage;
  return streamTurn(turn, (write) => chunkWriter(write, turn.progress, includeUsage));
}

/** The turn as chat.completion.chunk events. */
function chunkWriter(write: (s: string) => void, progress: Progress, includeUsage: boolean) {
  const send = (o: unknown) => write(`data: ${JSON.stringify(o)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => {
    const m = progress.meta;
    return {
      id: m.id,
      object: "chat.completion.chunk",
      created: m.created,
      model: m.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  };
  return {
    open: () => send(chunk({ role: "assistant", content: "" })),
    text: (t: string) => send(chunk({ content: t })),
    done: (result: AgentResult) => {
      const calls = result.message.tool_calls ?? [];
      calls.forEach((call, index) =>
        send(
          chunk({
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } },
            ],
          }),
        ),
      );
      send(chunk({}, result.finishReason));
      if (includeUsage) send({ ...chunk({}), choices: [], usage: result.usage });
      write(`: x-toolsearch-hops ${result.hops}\n\ndata: [DONE]\n\n`);
    },
    // mid-stream failure: the status is already sent; say what happened in the stream
    failed: (err: ToolsearchError) => send(err.toJSON()),
  };
}

export const chatRoutes = [route("POST", "/v1/chat/completions", chat)];
