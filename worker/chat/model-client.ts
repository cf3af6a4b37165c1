// The upstream model at OPENAI_BASE_URL (any OpenAI-compatible server), called with one fetch
// (chat/upstream-post.ts: the SDK's retries, backoff and retry-after, redirects refused, 401/403 the
// deployment's key) and its answer read as server-sent events off the body (chat/sse.ts). A round
// is always requested as a stream: text reaches the client as it arrives (when the client
// streams), and tool-call deltas are gathered into one message the agent loop can judge. Upstream
// 4xx answers pass through in OpenAI's error shape; 5xx and timeouts are retried, then become a
// 502 naming the cause; an error event in the stream is a 502 too. An aborted client aborts the
// upstream call. The openai SDK did this before, at about twice the cost per call, on every round
// of every agent request (RESULTS.md section 14 times both).

import type { ChatMessage, OpenAITool, ToolCall, Usage } from "../core/chat.ts";
import type { ModelTurn } from "../core/agent.ts";
import { ToolsearchError } from "../core/errors.ts";
import { sseEvents } from "./sse.ts";
import { MAX_BACKOFF_MS, postUpstream, redactKey, type UpstreamConfig } from "./upstream-post.ts";

export { redactKey, refusedKey, type UpstreamConfig } from "./upstream-post.ts";

/** An upstream 4xx, passed to the client with the upstream's status and error object. */
export class UpstreamRejection extends ToolsearchError {
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super("upstream_error", String(body.message ?? `upstream answered ${status}`), status);
    this.body = body;
  }
  override toJSON() {
    return { error: { ...this.body, code: this.body.code ?? "upstream_error", message: this.message } } as ReturnType<
      ToolsearchError["toJSON"]
    >;
  }
}

/** the most bytes read of one upstream answer (L3): a model stream without end stops there */
export const UPSTREAM_MAX_BYTES = 16 * 1024 * 1024;
export const tooLong = () =>
  new ToolsearchError("upstream_error", `the upstream's answer passed ${UPSTREAM_MAX_BYTES} bytes; reading stopped`);

/**
 * The whole call, retries included, gets as long as all its attempts and the waits between them
 * could take, and no longer (L3): a stream that never ends stops there.
 */
export const deadlineMs = (cfg: UpstreamConfig) => cfg.timeoutMs * (cfg.maxRetries + 1) + MAX_BACKOFF_MS * cfg.maxRetries;

export interface RoundMeta {
  id: string;
  created: number;
  model: string;
}

type Chunk = {
  id?: string;
  created?: number;
  model?: string;
  usage?: Partial<Usage> | null;
  error?: { message?: string };
  choices?: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
};

/** The request as OpenAI's API takes it, with the key; a 4xx answer becomes an UpstreamRejection. */
function chatRequest(cfg: UpstreamConfig, params: Record<string, unknown>) {
  return {
    url: `${cfg.baseURL.replace(/\/$/, "")}/chat/completions`,
    headers: { "content-type": "application/json", accept: "text/event-stream", authorization: `Bearer ${cfg.apiKey}` },
    body: JSON.stringify(params),
    keyName: "OPENAI_API_KEY",
    rejection: (status: number, err: Record<string, unknown> | undefined, text: string) =>
      new UpstreamRejection(status, {
        message: String(err?.message ?? (text.slice(0, 300) || `upstream answered ${status}`)),
        type: err?.type ?? "invalid_request_error",
        param: err?.param ?? null,
        code: err?.code ?? null,
      }),
  };
}

const notAStream = (why: string) =>
  new ToolsearchError("upstream_error", `upstream answered something that is not a chat completion stream: ${why.slice(0, 300)}`);

/** Call the model once; `onText` sees each text delta (with the round's id, created, model). */
export async function callUpstream(
  cfg: UpstreamConfig,
  body: Record<string, unknown>,
  round: { messages: ChatMessage[]; tools: OpenAITool[]; toolChoice?: unknown },
  opts: { signal: AbortSignal; onText?: (delta: string, meta: RoundMeta) => void },
): Promise<ModelTurn & { meta: RoundMeta }> {
  const params = { ...body, messages: round.messages, stream: true, stream_options: { include_usage: true } } as Record<string, unknown>;
  if (round.tools.length) params.tools = round.tools;
  else delete params.tools;
  if (round.toolChoice !== undefined && round.tools.length) params.tool_choice = round.toolChoice;
  else delete params.tool_choice;
  let text = "";
  const calls: ToolCall[] = [];
  let finishReason: string | null = null;
  let usage: Partial<Usage> | null = null;
  const meta: RoundMeta = { id: "", created: Math.floor(Date.now() / 1000), model: String(body.model) };
  const deadline = AbortSignal.timeout(deadlineMs(cfg));
  const signal = AbortSignal.any([opts.signal, deadline]);
  try {
    const res = await postUpstream(cfg, chatRequest(cfg, params), signal);
    for await (const sse of sseEvents(res.body ?? new Response("").body!, UPSTREAM_MAX_BYTES, tooLong)) {
      if (sse.data === "[DONE]") break;
      let chunk: Chunk;
      try {
        chunk = JSON.parse(sse.data) as Chunk;
      } catch {
        throw notAStream("malformed server-sent event JSON");
      }
      if (sse.event === "error" || chunk?.error) throw notAStream(redactKey(String(chunk?.error?.message ?? sse.data), cfg.apiKey));
      if (chunk.id) meta.id = chunk.id;
      if (chunk.created) meta.created = chunk.created;
      if (chunk.model) meta.model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === "string" && delta.content) {
        text += delta.content;
        opts.onText?.(delta.content, meta);
      }
      for (const tc of delta.tool_calls ?? []) {
        const slot = (calls[tc.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (tc.id) slot.id = tc.id;
        if (tc.function?.name) slot.function.name += tc.function.name;
        if (tc.function?.arguments) slot.function.arguments += tc.function.arguments;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    }
  } catch (e) {
    if (deadline.aborted && !opts.signal.aborted)
      throw new ToolsearchError("upstream_error", `upstream did not finish within ${deadlineMs(cfg)} ms (the call's overall deadline)`);
    if (opts.signal.aborted) throw new ToolsearchError("upstream_error", "the client went away; the upstream call was aborted", 499);
    if (e instanceof ToolsearchError) throw e;
    throw notAStream(redactKey(String((e as Error)?.message), cfg.apiKey));
  }
  if (!meta.id) throw new ToolsearchError("upstream_error", "upstream answered with no completion chunks");
  const message: ChatMessage = { role: "assistant", content: text || null };
  const toolCalls = calls.filter(Boolean);
  if (toolCalls.length) message.tool_calls = toolCalls;
  return { message, finishReason, usage, meta };
}
