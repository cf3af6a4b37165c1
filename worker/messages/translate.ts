// Anthropic Messages to Chat Completions, pure: a request's system and messages become chat
// messages (tool_use blocks tool calls, tool_result blocks tool messages), its fields their chat
// forms. The same request always gives the same bytes, so a conversation replayed turn by turn
// reaches the upstream as before. Blocks a chat upstream has no place for are left out: thinking
// (a chat model cannot take it back; for the Anthropic upstream it rides on the assistant message,
// unchanged: thinking.ts), and the tool search blocks the Worker answered itself
// (server_tool_use, tool_search_tool_result: the session's splices put the hidden rounds back).
// `tool_reference` blocks are gathered, in the order they first appear: the tools they load.

import type { ChatMessage, JsonValue, ToolCall } from "../core/chat.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { ContentBlock, MessageParam, MessagesBody, ResultPart, ToolChoice } from "../wire/messages.ts";
import { withThinking, type ThinkingBlock } from "./thinking.ts";

/** A 400 naming the field, as every check on this surface words it (`field: rule`). */
export const badField = (field: string, rule: string) => new ToolsearchError("bad_request", `${field}: ${rule}`);

/** The system prompt as one string: text blocks joined (cache_control is the Anthropic upstream's business). */
export function systemText(system: MessagesBody["system"]): string | undefined {
  if (system === undefined) return undefined;
  return typeof system === "string" ? system : system.map((b) => b.text).join("\n\n");
}

type Source = { type: string; media_type?: unknown; data?: unknown; url?: unknown };
const str = (v: unknown) => (typeof v === "string" ? v : "");

/** An image or document block as a chat content part. */
function mediaPart(b: { type: "image" | "document"; source: Source }, field: string): JsonValue {
  const s = b.source;
  if (b.type === "image") {
    if (s.type === "base64") return { type: "image_url", image_url: { url: `data:${str(s.media_type)};base64,${str(s.data)}` } };
    if (s.type === "url") return { type: "image_url", image_url: { url: str(s.url) } };
  } else {
    if (s.type === "base64")
      return { type: "file", file: { filename: "document.pdf", file_data: `data:${str(s.media_type)};base64,${str(s.data)}` } };
    if (s.type === "text") return { type: "text", text: str(s.data) };
    if (s.type === "url") return { type: "text", text: `[document: ${str(s.url)}]` };
  }
  throw badField(`${field}.source.type`, `"${s.type.slice(0, 40)}" is not supported for ${b.type} blocks on this endpoint`);
}

/** What a tool_result says to a chat model: its text, a line per tool it loaded, a mark for media. */
function resultText(content: string | readonly ResultPart[] | undefined, isError: boolean, refs: string[]): string {
  const parts = typeof content === "string" ? [content] : (content ?? []).map((p) => partText(p, refs));
  const text = parts.filter(Boolean).join("\n");
  return isError ? `Error: ${text}` : text;
}

function partText(p: ResultPart, refs: string[]): string {
  if (p.type === "text") return p.text;
  if (p.type === "tool_reference") {
    refs.push(p.tool_name);
    return `Tool ${p.tool_name} loaded: it is in your tools list now.`;
  }
  if (p.type === "search_result") return JSON.stringify(p);
  return `[${p.type}]`;
}

/** tool_search_tool_result blocks sent back: the names they referenced. */
function searchReferences(b: Extract<ContentBlock, { type: "tool_search_tool_result" }>, refs: string[]): void {
  const c = (b as { content?: { tool_references?: Array<{ tool_name?: unknown }> } }).content;
  for (const r of c?.tool_references ?? []) if (typeof r?.tool_name === "string") refs.push(r.tool_name);
}

export interface Translated {
  messages: ChatMessage[];
  /** every tool_reference, first appearance first */
  references: string[];
}

/** Messages as chat messages; a tool_result must answer a tool_use made before it; thinking kept only when asked. */
export function chatMessages(system: string | undefined, messages: readonly MessageParam[], keepThinking = false): Translated {
  const out: ChatMessage[] = system !== undefined ? [{ role: "system", content: system }] : [];
  const calls = new Set<string>();
  const refs: string[] = [];
  messages.forEach((m, i) => {
    const field = `messages.${i}.content`;
    if (m.role === "assistant") {
      const text: string[] = [];
      const toolCalls: ToolCall[] = [];
      const thinking: ThinkingBlock[] = [];
      m.content.forEach((b, j) => {
        if (b.type === "text") text.push(b.text);
        else if ((b.type === "thinking" || b.type === "redacted_thinking") && keepThinking) thinking.push(b as ThinkingBlock);
        else if (b.type === "tool_use") {
          toolCalls.push({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input) } });
          calls.add(b.id);
        } else if (b.type === "tool_search_tool_result") searchReferences(b, refs);
        else if (b.type !== "thinking" && b.type !== "redacted_thinking" && b.type !== "server_tool_use")
          throw badField(`${field}.${j}.type`, `a "${b.type}" block cannot be in an assistant message`);
      });
      if (!text.length && !toolCalls.length && !thinking.length) return;
      const msg: ChatMessage = { role: "assistant", content: text.length ? text.join("") : null };
      if (toolCalls.length) msg.tool_calls = toolCalls;
      out.push(withThinking(msg, thinking));
      return;
    }
    const parts: JsonValue[] = [];
    m.content.forEach((b, j) => {
      if (b.type === "tool_result") {
        if (!calls.has(b.tool_use_id))
          throw badField(`${field}.${j}.tool_use_id`, `no tool_use with id "${b.tool_use_id.slice(0, 80)}" comes before this tool_result`);
        out.push({ role: "tool", tool_call_id: b.tool_use_id, content: resultText(b.content, b.is_error === true, refs) });
      } else if (b.type === "text") parts.push({ type: "text", text: b.text });
      else if (b.type === "image" || b.type === "document") parts.push(mediaPart(b as never, `${field}.${j}`));
      else throw badField(`${field}.${j}.type`, `a "${b.type}" block cannot be in a user message`);
    });
    if (!parts.length) return;
    const only = parts.length === 1 ? (parts[0] as { type?: string; text?: string }) : null;
    out.push({ role: "user", content: only?.type === "text" ? only.text! : parts });
  });
  return { messages: out, references: [...new Set(refs)] };
}

/** tool_choice in its chat form, and parallel_tool_calls when the client turned it off. */
export function chatToolChoice(choice: ToolChoice | undefined): { tool_choice?: JsonValue; parallel_tool_calls?: boolean } {
  if (!choice) return {};
  const parallel = "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use ? { parallel_tool_calls: false } : {};
  if (choice.type === "auto") return { tool_choice: "auto", ...parallel };
  if (choice.type === "any") return { tool_choice: "required", ...parallel };
  if (choice.type === "none") return { tool_choice: "none" };
  return { tool_choice: { type: "function", function: { name: choice.name } }, ...parallel };
}

/** The sampling fields in their chat form; Anthropic's own (top_k, thinking, metadata) are not sent to a chat upstream. */
export function chatFields(b: MessagesBody): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = { max_completion_tokens: b.max_tokens };
  if (b.temperature !== undefined) out.temperature = b.temperature;
  if (b.top_p !== undefined) out.top_p = b.top_p;
  if (b.stop_sequences?.length) out.stop = b.stop_sequences;
  return out;
}
