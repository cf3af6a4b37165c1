// Reading a Messages upstream's event stream into one agent round: text deltas as they come (for a
// streaming client), tool_use blocks with their input_json_delta pieces joined, thinking and
// redacted_thinking blocks kept whole on the round's message (thinking.ts) and relayed event by
// event as they come (`onThinking`), the stop reason in chat terms and the usage.

import type { ModelTurn } from "../core/agent.ts";
import type { ChatMessage, ToolCall, Usage } from "../core/chat.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { RoundMeta } from "../chat/model-client.ts";
import type { ServerSentEvent } from "../chat/sse.ts";
import { withThinking, type ThinkingBlock } from "./thinking.ts";

/** A thinking block's events as the upstream sends them: its start, each thinking or signature delta, its stop. */
export type ThinkingEvent =
  | { kind: "start"; block: ThinkingBlock }
  | { kind: "delta"; delta: { type: "thinking_delta"; thinking: string } | { type: "signature_delta"; signature: string } }
  | { kind: "stop" };

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

/** Anthropic's usage in chat terms: the prompt is every input token, cached or written. */
export function chatUsage(u: AnthropicUsage): Partial<Usage> {
  const read = u.cache_read_input_tokens ?? 0;
  const prompt = (u.input_tokens ?? 0) + read + (u.cache_creation_input_tokens ?? 0);
  const completion = u.output_tokens ?? 0;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: read },
  };
}

const FINISH: Record<string, string> = { tool_use: "tool_calls", max_tokens: "length", end_turn: "stop", stop_sequence: "stop_sequence" };

type Event = {
  type: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage };
  content_block?: { type: string; id?: string; name?: string; data?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string; thinking?: string; signature?: string };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
};

export async function readMessagesStream(
  events: AsyncIterable<ServerSentEvent>,
  model: string,
  onText?: (delta: string, meta: RoundMeta) => void,
  onThinking?: (e: ThinkingEvent) => void,
): Promise<{ turn: Omit<ModelTurn, "usage">; usage: AnthropicUsage; meta: RoundMeta }> {
  const meta: RoundMeta = { id: "", created: Math.floor(Date.now() / 1000), model };
  let text = "";
  const calls = new Map<number, ToolCall>();
  const thinking = new Map<number, ThinkingBlock>();
  let finish: string | null = null;
  let usage: AnthropicUsage = {};
  const handle = (e: Event) => {
    if (e.type === "message_start") {
      meta.id = e.message?.id ?? "";
      if (e.message?.model) meta.model = e.message.model;
      usage = { ...e.message?.usage };
    } else if (e.type === "content_block_start" && e.content_block?.type === "tool_use")
      calls.set(e.index ?? 0, {
        id: e.content_block.id ?? "",
        type: "function",
        function: { name: e.content_block.name ?? "", arguments: "" },
      });
    else if (e.type === "content_block_start" && e.content_block?.type === "thinking") {
      const block: ThinkingBlock = { type: "thinking", thinking: "", signature: "" };
      thinking.set(e.index ?? 0, block);
      onThinking?.({ kind: "start", block: { ...block } });
    } else if (e.type === "content_block_start" && e.content_block?.type === "redacted_thinking") {
      const block: ThinkingBlock = { type: "redacted_thinking", data: e.content_block.data ?? "" };
      thinking.set(e.index ?? 0, block);
      onThinking?.({ kind: "start", block: { ...block } });
    } else if (e.type === "content_block_delta" && (e.delta?.type === "thinking_delta" || e.delta?.type === "signature_delta")) {
      const block = thinking.get(e.index ?? 0);
      if (block?.type !== "thinking") return;
      if (e.delta.type === "thinking_delta") {
        block.thinking += e.delta.thinking ?? "";
        onThinking?.({ kind: "delta", delta: { type: "thinking_delta", thinking: e.delta.thinking ?? "" } });
      } else {
        block.signature += e.delta.signature ?? "";
        onThinking?.({ kind: "delta", delta: { type: "signature_delta", signature: e.delta.signature ?? "" } });
      }
    } else if (e.type === "content_block_stop" && thinking.has(e.index ?? 0)) onThinking?.({ kind: "stop" });
    else if (e.type === "content_block_delta" && e.delta?.type === "text_delta" && e.delta.text) {
      text += e.delta.text;
      onText?.(e.delta.text, meta);
    } else if (e.type === "content_block_delta" && e.delta?.type === "input_json_delta") {
      const call = calls.get(e.index ?? 0);
      if (call) call.function.arguments += e.delta.partial_json ?? "";
    } else if (e.type === "message_delta") {
      finish = e.delta?.stop_reason ? (FINISH[e.delta.stop_reason] ?? "stop") : finish;
      usage = { ...usage, ...e.usage };
    } else if (e.type === "error")
      throw new ToolsearchError("upstream_error", `upstream stream failed: ${e.error?.message ?? "error event"}`);
  };
  for await (const sse of events) {
    let e: Event;
    try {
      e = JSON.parse(sse.data) as Event;
    } catch {
      throw new ToolsearchError("upstream_error", "upstream answered something that is not a Messages event stream");
    }
    handle(e);
  }
  if (!meta.id) throw new ToolsearchError("upstream_error", "upstream answered with no message_start event");
  const blocks = [...thinking.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
  const message: ChatMessage = withThinking({ role: "assistant", content: text || null }, blocks);
  const toolCalls = [...calls.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, c]) => ({ ...c, function: { ...c.function, arguments: c.function.arguments || "{}" } }));
  if (toolCalls.length) message.tool_calls = toolCalls;
  return { turn: { message, finishReason: finish }, usage, meta };
}
