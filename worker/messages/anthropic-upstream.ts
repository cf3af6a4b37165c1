// The Anthropic-compatible Messages upstream (ANTHROPIC_BASE_URL, key ANTHROPIC_API_KEY): one
// round of the agent loop, sent as a Messages request with deferral already applied. The round
// comes in chat form (the one agent loop works on it) and goes out as Messages: the client's own
// system blocks first, cache_control and all, the deferred section as one more text block; tool
// calls as tool_use blocks, tool results as tool_result blocks, an assistant round's thinking blocks
// back as the upstream sent them, before its text and tool_use (thinking.ts); tools with input_schema. The
// request's thinking, top_k, metadata and betas are kept; defer_loading, tool_reference and the
// placeholder never reach it (the Worker answered them). Always streamed, so text reaches a
// streaming client as it arrives; 4xx answers pass through (401 and 403, the deployment's key
// refused, are a 502), 5xx and timeouts are retried, then a 502; texts are redacted of the key,
// and a redirect is not followed with it.

import type { ModelTurn } from "../core/agent.ts";
import { textOf, type ChatMessage, type JsonValue, type OpenAITool, type ToolCall, type Usage } from "../core/chat.ts";
import { ToolsearchError } from "../core/errors.ts";
import { deadlineMs, tooLong, UPSTREAM_MAX_BYTES, UpstreamRejection, type RoundMeta, type UpstreamConfig } from "../chat/model-client.ts";
import { sseEvents } from "../chat/sse.ts";
import { postUpstream } from "../chat/upstream-post.ts";
import { chatUsage, readMessagesStream, type ThinkingEvent } from "./anthropic-stream.ts";
import { thinkingOf } from "./thinking.ts";

type Block = Record<string, JsonValue>;
type Message = { role: "user" | "assistant"; content: Block[] };

/** A chat content value as Messages blocks (text, images and files as the translation made them). */
function blocks(content: JsonValue | undefined): Block[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) return [];
  return content.map((p: { type?: string; text?: string; image_url?: { url?: string }; file?: { file_data?: string } }): Block => {
    const data = /^data:([^;]+);base64,(.*)$/s.exec(p.image_url?.url ?? p.file?.file_data ?? "");
    if (p.type === "image_url")
      return data
        ? { type: "image", source: { type: "base64", media_type: data[1]!, data: data[2]! } }
        : { type: "image", source: { type: "url", url: p.image_url?.url ?? "" } };
    if (p.type === "file" && data) return { type: "document", source: { type: "base64", media_type: data[1]!, data: data[2]! } };
    return { type: "text", text: p.text ?? "" };
  });
}

const inputOf = (c: ToolCall): JsonValue => {
  try {
    return JSON.parse(c.function.arguments || "{}") as JsonValue;
  } catch {
    return {};
  }
};

/** The round's messages as Messages: tool results join the next user turn; consecutive turns of a role merge. */
export function messagesOf(round: readonly ChatMessage[]): { system: string | null; messages: Message[] } {
  let system: string | null = null;
  const out: Message[] = [];
  const push = (role: Message["role"], content: Block[]) => {
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const m of round) {
    if (m.role === "system" || m.role === "developer") system = system === null ? textOf(m.content) : `${system}\n\n${textOf(m.content)}`;
    else if (m.role === "tool") push("user", [{ type: "tool_result", tool_use_id: m.tool_call_id ?? "", content: textOf(m.content) }]);
    else if (m.role === "assistant")
      push("assistant", [
        ...thinkingOf(m),
        ...blocks(m.content),
        ...(m.tool_calls ?? []).map((c) => ({ type: "tool_use", id: c.id, name: c.function.name, input: inputOf(c) })),
      ]);
    else push("user", blocks(m.content));
  }
  return { system, messages: out };
}

/** The client's system blocks kept as they came, the Worker's section after them. */
export function systemBlocks(own: AnthropicRequest["system"], joined: string | null): JsonValue | undefined {
  if (joined === null) return undefined;
  if (own === undefined || typeof own === "string") return joined;
  const mine = own.map((b) => b.text).join("\n\n");
  const rest = joined.startsWith(mine) ? joined.slice(mine.length).replace(/^\n\n/, "") : null;
  if (rest === null) return joined;
  return rest ? [...own, { type: "text", text: rest }] : [...own];
}

function toolChoice(choice: unknown, parallel: boolean): JsonValue | undefined {
  const extra = parallel ? {} : { disable_parallel_tool_use: true };
  if (choice === "none") return { type: "none" };
  if (choice === "required") return { type: "any", ...extra };
  const named = (choice as { function?: { name?: string } } | null)?.function?.name;
  if (named) return { type: "tool", name: named, ...extra };
  return parallel ? undefined : { type: "auto", ...extra };
}

export interface AnthropicRequest {
  /** the client's fields kept as they are: model, max_tokens, sampling, thinking, metadata */
  fields: Record<string, JsonValue>;
  system: string | ReadonlyArray<{ text: string }> | undefined;
  parallel: boolean;
  /** anthropic-beta, without the betas only deferral needs */
  betas: string | undefined;
}

type Round = { messages: ChatMessage[]; tools: OpenAITool[]; toolChoice?: unknown };

/** The round as a Messages request body (deferral already applied: only what the round holds). */
export function messagesBody(req: AnthropicRequest, round: Round): Record<string, JsonValue> {
  const { system, messages } = messagesOf(round.messages);
  const body: Record<string, JsonValue> = { ...req.fields, messages };
  const sys = systemBlocks(req.system, system);
  if (sys !== undefined) body.system = sys;
  if (round.tools.length) {
    body.tools = round.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description !== undefined ? { description: t.function.description } : {}),
      input_schema: (t.function.parameters ?? { type: "object", properties: {} }) as JsonValue,
    }));
    const choice = toolChoice(round.toolChoice, req.parallel);
    if (choice) body.tool_choice = choice;
  }
  return body;
}

/** POST to the Messages upstream (chat/upstream-post.ts: retries, redirects, the key refused); a 4xx passed on in Anthropic's terms. */
function post(
  cfg: UpstreamConfig,
  req: AnthropicRequest,
  path: string,
  body: Record<string, JsonValue>,
  signal: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-api-key": cfg.apiKey,
    "anthropic-version": "2023-06-01",
  };
  if (req.betas) headers["anthropic-beta"] = req.betas;
  return postUpstream(
    cfg,
    {
      url: `${cfg.baseURL.replace(/\/$/, "")}${path}`,
      headers,
      body: JSON.stringify(body),
      keyName: "ANTHROPIC_API_KEY",
      rejection: (status, err) =>
        new UpstreamRejection(status, {
          message: typeof err?.message === "string" ? err.message : `upstream answered ${status}`,
          type: err?.type ?? "invalid_request_error",
        }),
    },
    signal,
  );
}

/** Call the Messages upstream once; `onText` sees each text delta, `onThinking` each thinking block's events. */
export async function callAnthropic(
  cfg: UpstreamConfig,
  req: AnthropicRequest,
  round: Round,
  opts: { signal: AbortSignal; onText?: (delta: string, meta: RoundMeta) => void; onThinking?: (e: ThinkingEvent) => void },
): Promise<ModelTurn & { meta: RoundMeta }> {
  // the whole call, retries and the stream included, within the overall deadline; the stream read
  // to UPSTREAM_MAX_BYTES at most (L3)
  const deadline = AbortSignal.timeout(deadlineMs(cfg));
  const signal = AbortSignal.any([opts.signal, deadline]);
  const read = await (async () => {
    const res = await post(cfg, req, "/v1/messages", { ...messagesBody(req, round), stream: true }, signal);
    return readMessagesStream(sseEvents(res.body!, UPSTREAM_MAX_BYTES, tooLong), String(req.fields.model), opts.onText, opts.onThinking);
  })().catch((e: unknown) => {
    if (deadline.aborted && !opts.signal.aborted)
      throw new ToolsearchError("upstream_error", `upstream did not finish within ${deadlineMs(cfg)} ms (the call's overall deadline)`);
    if (opts.signal.aborted) throw new ToolsearchError("upstream_error", "the client went away; the upstream call was aborted", 499);
    throw e;
  });
  const usage: Partial<Usage> = chatUsage(read.usage);
  return { ...read.turn, usage, meta: read.meta };
}

/** The upstream's own count of the round (its count_tokens route takes no generation fields). */
export async function countAnthropic(cfg: UpstreamConfig, req: AnthropicRequest, round: Round, signal: AbortSignal): Promise<number> {
  const {
    max_tokens: _m,
    stream: _s,
    temperature: _t,
    top_p: _p,
    top_k: _k,
    stop_sequences: _q,
    metadata: _d,
    ...body
  } = messagesBody(req, round);
  const res = await post(cfg, req, "/v1/messages/count_tokens", body, signal);
  const counted = (await res.json()) as { input_tokens?: unknown };
  if (typeof counted.input_tokens !== "number")
    throw new ToolsearchError("upstream_error", "upstream count_tokens answered no input_tokens");
  return counted.input_tokens;
}
