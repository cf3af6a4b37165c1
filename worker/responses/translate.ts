// Responses to Chat Completions, pure: a request's items become chat messages, its tools chat tools,
// its tool_choice and sampling fields their chat forms. The same request always gives the same
// bytes (fixed key order, nothing random), so a conversation replayed item by item, or rebuilt
// from stored responses, reaches the upstream exactly as before: the prefix stays cached. A
// namespace's functions (Codex sends each MCP server so) become flat names, mapped back when the
// model calls them. Reasoning items are accepted and left out: a chat upstream cannot take them.

import type { ChatMessage, JsonValue, ToolCall } from "../core/chat.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { ChatBody } from "../wire/chat.ts";
import type { ResponsesBody, ResponsesTool } from "../wire/responses.ts";

type ChatTool = NonNullable<ChatBody["tools"]>[number];
type FunctionTool = Extract<ResponsesTool, { type: "function" }>;
/** flat (chat) name -> the client's own: its name, a namespace's function its namespace, and its definition */
export type ToolNames = Map<string, { namespace?: { name: string; description?: string | null }; name: string; def: FunctionTool }>;

/** A 400 naming the field, as every check on this surface words it (`field: rule`). */
export const badField = (field: string, rule: string) => new ToolsearchError("bad_request", `${field}: ${rule}`);

function fnv1a(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}

/** A namespace's function as one chat tool name: `<ns>__<name>` (`<ns><name>` when ns ends in _), safe for every provider. */
export function flatName(namespace: string, name: string): string {
  const joined = namespace.endsWith("_") ? namespace + name : `${namespace}__${name}`;
  if (/^[a-zA-Z0-9_-]{1,64}$/.test(joined)) return joined;
  return `${joined.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 55)}_${fnv1a(joined)}`;
}

function chatFunction(t: FunctionTool, name: string): ChatTool {
  const fn: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean } = { name };
  if (t.description != null) fn.description = t.description;
  if (t.parameters != null) fn.parameters = t.parameters;
  if (t.strict != null) fn.strict = t.strict;
  return t.defer_loading !== undefined
    ? { type: "function", function: fn, defer_loading: t.defer_loading }
    : { type: "function", function: fn };
}

/** The request's tools as chat tools, how to name their calls back, and the types left out. */
export function chatTools(tools: readonly ResponsesTool[]): { tools: ChatTool[]; names: ToolNames; unsupported: string[] } {
  const names: ToolNames = new Map();
  const out: ChatTool[] = [];
  const unsupported = new Set<string>();
  tools.forEach((t, i) => {
    if (t.type === "unsupported") unsupported.add(t.kind);
    else if (t.type === "tool_search") out.push({ type: "tool_search" });
    else if (t.type === "function") {
      out.push(chatFunction(t, t.name));
      names.set(t.name, { name: t.name, def: t });
    } else
      for (const f of t.tools) {
        if (f.type === "unsupported") {
          unsupported.add(f.kind);
          continue;
        }
        const flat = flatName(t.name, f.name);
        if (names.has(flat)) throw badField(`tools.${i}.tools`, `"${f.name}" in namespace "${t.name}" is declared twice (as ${flat})`);
        out.push(chatFunction(f, flat));
        names.set(flat, { namespace: { name: t.name, description: t.description }, name: f.name, def: f });
      }
  });
  return { tools: out, names, unsupported: [...unsupported].sort() };
}

/** tool_choice in its chat form; a namespace's function is named flat. */
export function chatToolChoice(choice: ResponsesBody["tool_choice"]): JsonValue | undefined {
  if (choice === undefined || typeof choice === "string") return choice;
  const named = (c: { name: string; namespace?: string }) => ({
    type: "function",
    function: { name: c.namespace ? flatName(c.namespace, c.name) : c.name },
  });
  if (choice.type === "function") return named(choice);
  return { type: "allowed_tools", allowed_tools: { mode: choice.mode, tools: choice.tools.map(named) } };
}

/** A content part as read here: an input's (zod's type) or an output's (shapes.ts). */
interface Part {
  type: string;
  text?: string;
  refusal?: string;
  image_url?: unknown;
  detail?: unknown;
  file_id?: unknown;
  file_data?: unknown;
  filename?: unknown;
}
type Content = string | readonly Part[];

/** An item as read here: a request's input, or a response's output sent back. */
export type Item =
  | { type: "message"; role: "user" | "assistant" | "system" | "developer"; content: Content }
  | { type: "function_call"; call_id: string; name: string; namespace?: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: Content }
  | { type: "reasoning" | "tool_search_call" | "tool_search_output" | "mcp_approval_request" }
  | { type: "mcp_approval_response"; approval_request_id: string; approve: boolean; reason?: string };

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

const TEXT_PARTS = new Set(["input_text", "output_text", "text", "refusal"]);
const partText = (p: Part) => p.text ?? p.refusal ?? "";

/** A message's content: a string as it is; text parts as a string (one) or text parts; images and files as chat parts. */
function chatContent(content: Content, field: string): JsonValue {
  if (typeof content === "string") return content;
  if (content.every((p) => TEXT_PARTS.has(p.type)))
    return content.length === 1 ? partText(content[0]!) : content.map((p) => ({ type: "text", text: partText(p) }));
  return content.map((p, j) => {
    if (TEXT_PARTS.has(p.type)) return { type: "text", text: partText(p) };
    if (p.type === "input_image") return { type: "image_url", image_url: { url: str(p.image_url) ?? "", detail: str(p.detail) ?? "auto" } };
    if (p.type === "input_file")
      return { type: "file", file: { file_id: str(p.file_id), file_data: str(p.file_data), filename: str(p.filename) } };
    throw badField(`${field}.${j}.type`, `unknown content type "${p.type}"; supported: input_text, output_text, input_image, input_file`);
  });
}

/** Text of an assistant message or a function output (other parts have no chat form there). */
function plainText(content: Content): string {
  return typeof content === "string" ? content : content.map((p) => (TEXT_PARTS.has(p.type) ? partText(p) : "")).join("");
}

/**
 * Items as chat messages. An assistant message and the function calls after it are one chat
 * message, as the model gave them. `calls` holds the call ids seen so far (the stored history's),
 * and gains this request's: an output must answer a call made before it.
 */
export function chatMessages(items: readonly Item[], calls: Set<string>, field = "input"): ChatMessage[] {
  const out: ChatMessage[] = [];
  let open: ChatMessage | null = null;
  items.forEach((it, i) => {
    // the upstream gets the hidden rounds themselves (splices), not the client's record of them
    if (it.type === "reasoning" || it.type === "tool_search_call" || it.type === "tool_search_output") return;
    // an approval's request and answer: the route made the answer the call's output (responses/approvals.ts)
    if (it.type === "mcp_approval_request" || it.type === "mcp_approval_response") return;
    if (it.type === "message") {
      const m: ChatMessage =
        it.role === "assistant"
          ? { role: "assistant", content: plainText(it.content) }
          : { role: it.role, content: chatContent(it.content, `${field}.${i}.content`) };
      out.push(m);
      open = it.role === "assistant" ? m : null;
    } else if (it.type === "function_call") {
      const call: ToolCall = {
        id: it.call_id,
        type: "function",
        function: { name: it.namespace ? flatName(it.namespace, it.name) : it.name, arguments: it.arguments },
      };
      if (!open) out.push((open = { role: "assistant", content: null }));
      (open.tool_calls ??= []).push(call);
      calls.add(it.call_id);
    } else if (it.type === "function_call_output") {
      if (!calls.has(it.call_id))
        throw badField(`${field}.${i}.call_id`, `no function_call with call_id "${it.call_id.slice(0, 80)}" comes before this output`);
      out.push({ role: "tool", tool_call_id: it.call_id, content: plainText(it.output) });
      open = null;
    }
  });
  return out;
}

/** The request's sampling and format fields in their chat form; the rest is not sent upstream. */
export function upstreamFields(b: ResponsesBody, hasTools: boolean): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  if (b.temperature != null) out.temperature = b.temperature;
  if (b.top_p != null) out.top_p = b.top_p;
  if (b.max_output_tokens != null) out.max_completion_tokens = b.max_output_tokens;
  if (b.parallel_tool_calls != null && hasTools) out.parallel_tool_calls = b.parallel_tool_calls;
  if (b.prompt_cache_key) out.prompt_cache_key = b.prompt_cache_key;
  if (b.user) out.user = b.user;
  if (b.reasoning?.effort) out.reasoning_effort = b.reasoning.effort;
  if (b.text?.verbosity) out.verbosity = b.text.verbosity;
  const format = b.text?.format;
  if (format?.type === "json_object") out.response_format = { type: "json_object" };
  if (format?.type === "json_schema") {
    const { type: _t, ...schema } = format;
    out.response_format = { type: "json_schema", json_schema: schema };
  }
  return out;
}
