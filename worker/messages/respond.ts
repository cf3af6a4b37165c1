// A finished turn as a Messages answer, pure: the agent's message as content blocks (each round's
// thinking and text, hidden rounds included: thinking.ts; the Worker's tool searches as Anthropic reports its server tools, each call to a client tool as a
// tool_use), the stop reason, and usage in Anthropic's shape (input tokens without the cached
// ones, which are cache_read_input_tokens).

import type { AgentResult } from "../core/agent.ts";
import type { JsonValue, Usage } from "../core/chat.ts";
import { roundBlocks, type ThinkingBlock } from "./thinking.ts";
import type { SearchKind } from "./tools.ts";

export type Block =
  | { type: "text"; text: string }
  | ThinkingBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, JsonValue> }
  | { type: "server_tool_use"; id: string; name: string; input: Record<string, JsonValue>; caller: { type: "direct" } }
  | { type: "tool_search_tool_result"; tool_use_id: string; content: JsonValue };

export interface MessagesUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
}

export interface MessageObject {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: Block[];
  stop_reason: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | null;
  stop_sequence: string | null;
  usage: MessagesUsage;
}

export function messagesUsage(u: Usage | null): MessagesUsage {
  const cached = u?.prompt_tokens_details.cached_tokens ?? 0;
  return {
    input_tokens: Math.max(0, (u?.prompt_tokens ?? 0) - cached),
    output_tokens: u?.completion_tokens ?? 0,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: null,
  };
}

/** A chat finish reason as a stop reason (a chat upstream does not say which stop sequence it met). */
export function stopReason(finish: string | null): MessageObject["stop_reason"] {
  if (finish === "tool_calls" || finish === "function_call") return "tool_use";
  if (finish === "length") return "max_tokens";
  // only the Messages upstream says a stop sequence ended the answer (not which one: stop_sequence stays null)
  if (finish === "stop_sequence") return "stop_sequence";
  return "end_turn";
}

/** A call's arguments as the input object a tool_use carries. */
function inputOf(args: string): Record<string, JsonValue> {
  try {
    const v: unknown = JSON.parse(args || "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, JsonValue>) : {};
  } catch {
    return {};
  }
}

/** One search the turn ran, as the client's search tool would report it. */
export interface SearchReport {
  kind: SearchKind;
  /** the name the client gave its search tool */
  name: string;
  input: Record<string, JsonValue>;
  /** the client's tools it referenced, or the error code */
  found: string[] | { error: string };
}

export function searchBlocks(reports: readonly SearchReport[], id: string): Block[] {
  return reports.flatMap((r, i) => {
    const use = `srvtoolu_${id.slice(4, 28)}${i}`;
    const content =
      "error" in r.found
        ? { type: "tool_search_tool_result_error", error_code: r.found.error, error_message: null }
        : { type: "tool_search_tool_search_result", tool_references: r.found.map((tool_name) => ({ type: "tool_reference", tool_name })) };
    return [
      { type: "server_tool_use" as const, id: use, name: r.name, input: r.input, caller: { type: "direct" } },
      { type: "tool_search_tool_result" as const, tool_use_id: use, content },
    ];
  });
}

/**
 * The content blocks: each round's thinking and text first (hidden rounds' included, as they came),
 * then searches, then tool_use blocks.
 */
export function contentBlocks(result: AgentResult, searched: readonly Block[]): Block[] {
  const s = result.splice;
  const rounds = s ? [...s.hidden.filter((m) => m.role === "assistant"), s.reply.upstream] : [result.message];
  const blocks: Block[] = roundBlocks(rounds);
  blocks.push(...searched);
  for (const call of result.message.tool_calls ?? [])
    blocks.push({ type: "tool_use", id: call.id, name: call.function.name, input: inputOf(call.function.arguments) });
  return blocks;
}

export function messageObject(meta: { id: string; model: string }, result: AgentResult, content: Block[]): MessageObject {
  return {
    id: meta.id,
    type: "message",
    role: "assistant",
    model: meta.model,
    content,
    stop_reason: stopReason(result.finishReason),
    stop_sequence: null,
    usage: messagesUsage(result.usage),
  };
}

/** A new message id: msg_ and 24 random base64url characters. */
export function newMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return `msg_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")}`;
}
