// The upstream model, through the openai SDK at OPENAI_BASE_URL (any OpenAI-compatible server).
// A round is always requested as a stream: text reaches the client as it arrives (when the client
// streams), and tool-call deltas are gathered into one message the agent loop can judge. Upstream
// 4xx answers pass through in OpenAI's error shape; 5xx and timeouts are retried by the SDK with
// backoff, then become a 502 naming the cause. An aborted client aborts the upstream call. Secrets
// stay in: every upstream text is redacted of the key (an upstream may repeat it), a 401 or 403 is
// the deployment's key refused, a 502 (never the caller's 401), and redirects are not followed
// with the key (`redirect: "manual"`).

import OpenAI from "openai";
import type { ChatMessage, OpenAITool, ToolCall, Usage } from "../core/chat.ts";
import type { ModelTurn } from "../core/agent.ts";
import { ToolsearchError } from "../core/errors.ts";
import { boundedResponse } from "../http.ts";

export interface UpstreamConfig {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
}

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

/** `text` with every occurrence of the deployment's key replaced (an upstream error may quote it). */
export function redactKey(text: string, key: string): string {
  return key.length >= 4 ? text.split(key).join("[redacted]") : text;
}

/** The upstream refused the deployment's own credentials: its fault, a 502, not the caller's 401. */
export function refusedKey(status: number, name: string): ToolsearchError {
  return new ToolsearchError("upstream_error", `the upstream refused this deployment's key (HTTP ${status}): check ${name}`);
}

/** the most bytes read of one upstream answer (L3): a model stream without end stops there */
export const UPSTREAM_MAX_BYTES = 16 * 1024 * 1024;
export const tooLong = () =>
  new ToolsearchError("upstream_error", `the upstream's answer passed ${UPSTREAM_MAX_BYTES} bytes; reading stopped`);

/** the OpenAI SDK's longest wait between two attempts when the upstream sends no retry-after */
const MAX_BACKOFF_MS = 8_000;

/**
 * The whole call, retries included, gets as long as all its attempts and the waits between them
 * could take, and no longer (L3): a stream that never ends stops there.
 */
export const deadlineMs = (cfg: UpstreamConfig) => cfg.timeoutMs * (cfg.maxRetries + 1) + MAX_BACKOFF_MS * cfg.maxRetries;

/** fetch that never follows a redirect (the key would go along to wherever it points), its answer bounded in bytes */
const upstreamFetch: typeof fetch = async (input, init) =>
  boundedResponse(await fetch(input, { ...init, redirect: "manual" }), UPSTREAM_MAX_BYTES, tooLong);

/**
 * The SDK client for this configuration, made once per isolate: it holds only its options (in
 * Node, on the loaded bench machine, a call with a new client took 9.5 ms against 5.0 ms).
 */
const clients = new Map<string, OpenAI>();
export function upstreamClient(cfg: UpstreamConfig): OpenAI {
  const key = JSON.stringify([cfg.baseURL, cfg.apiKey, cfg.timeoutMs, cfg.maxRetries]);
  let client = clients.get(key);
  if (!client) {
    // a deployment has one configuration; a bound keeps tests that vary it from piling clients up
    if (clients.size >= 16) clients.clear();
    client = new OpenAI({
      baseURL: cfg.baseURL,
      apiKey: cfg.apiKey,
      timeout: cfg.timeoutMs,
      maxRetries: cfg.maxRetries,
      fetch: upstreamFetch,
    });
    clients.set(key, client);
  }
  return client;
}

export interface RoundMeta {
  id: string;
  created: number;
  model: string;
}

/** Call the model once; `onText` sees each text delta (with the round's id, created, model). */
export async function callUpstream(
  client: OpenAI,
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
  try {
    const stream = await client.chat.completions.create(params as unknown as OpenAI.ChatCompletionCreateParamsStreaming, {
      signal: AbortSignal.any([opts.signal, deadline]),
    });
    for await (const chunk of stream) {
      if (chunk.id) meta.id = chunk.id;
      if (chunk.created) meta.created = chunk.created;
      if (chunk.model) meta.model = chunk.model;
      if (chunk.usage) usage = chunk.usage as Partial<Usage>;
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
    throw upstreamFailure(e, cfg);
  }
  if (!meta.id) throw new ToolsearchError("upstream_error", "upstream answered with no completion chunks");
  const message: ChatMessage = { role: "assistant", content: text || null };
  const toolCalls = calls.filter(Boolean);
  if (toolCalls.length) message.tool_calls = toolCalls;
  return { message, finishReason, usage, meta };
}

function upstreamFailure(e: unknown, cfg: UpstreamConfig): Error {
  if (e instanceof ToolsearchError) return e;
  if (e instanceof OpenAI.APIUserAbortError)
    return new ToolsearchError("upstream_error", "the client went away; the upstream call was aborted", 499);
  if (e instanceof OpenAI.APIConnectionTimeoutError) {
    return new ToolsearchError("upstream_error", `upstream did not answer within ${cfg.timeoutMs} ms (tried ${cfg.maxRetries + 1} times)`);
  }
  if (e instanceof OpenAI.APIError && (e.status === 401 || e.status === 403)) return refusedKey(e.status, "OPENAI_API_KEY");
  if (e instanceof OpenAI.APIError && e.status !== undefined && e.status >= 400 && e.status < 500) {
    const err = (e.error ?? {}) as Record<string, unknown>;
    return new UpstreamRejection(e.status, {
      message: redactKey(String(err.message ?? e.message), cfg.apiKey),
      type: err.type ?? "invalid_request_error",
      param: err.param ?? null,
      code: err.code ?? null,
    });
  }
  if (e instanceof OpenAI.APIError && e.status !== undefined) {
    return new ToolsearchError(
      "upstream_error",
      `upstream answered ${e.status} (tried ${cfg.maxRetries + 1} times): ${redactKey(e.message, cfg.apiKey).slice(0, 300)}`,
    );
  }
  if (e instanceof OpenAI.APIConnectionError)
    return new ToolsearchError("upstream_error", `could not reach upstream at ${cfg.baseURL} (tried ${cfg.maxRetries + 1} times)`);
  return new ToolsearchError(
    "upstream_error",
    `upstream answered something that is not a chat completion stream: ${redactKey(String((e as Error)?.message), cfg.apiKey).slice(0, 300)}`,
  );
}
