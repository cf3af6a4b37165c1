// The OpenAI Chat Completions shapes the agent endpoint speaks, and how a client's request becomes
// the upstream request: the frozen deferred-names section joins the first system/developer
// message, and the tools are the client's own first, then the session's (core, toolSearch or
// callTool, activated), so a turn only ever appends to what the previous turn sent. Pure.

import type { CatalogTool } from "./catalog.ts";
import { sessionPromptParts } from "./frozen.ts";
import { CALL_TOOL_NAME, openaiTool, promptTools, TOOL_SEARCH_NAME } from "./prompt.ts";

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** Any JSON value; `unknown` would not cross a Durable Object's RPC boundary (its types map it to never). */
export type JsonValue = string | number | boolean | null | object;

export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content?: JsonValue;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
  [k: string]: JsonValue | undefined;
}

export interface OpenAITool {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown>; [k: string]: unknown };
  /** OpenAI's deferred-tool flag (also accepted inside `function`); read by the plan, never sent upstream */
  defer_loading?: boolean;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export type Activation = "inject" | "proxy";

export { CALL_TOOL_NAME };
export const RESERVED_NAMES: ReadonlySet<string> = new Set([TOOL_SEARCH_NAME, CALL_TOOL_NAME]);

export interface AgentSession {
  mode: "deferred" | "full";
  activation: Activation;
  systemSection: string;
  coreTools: readonly string[];
  activations: readonly string[];
  /** code mode: runCode is offered, run by the Worker (run-code-tool.ts) */
  code?: "on";
}

/**
 * The upstream tools array: the client's tools that are loaded from the start (in the session's
 * core tools, or all in full mode) in their order, then the session's prompt tools (core,
 * toolSearch or callTool, activated, and runCode in a code-mode session). `byName` resolves client tools too (client-tools.ts): an
 * activated client tool goes out as the client's own object, byte for byte.
 */
export function upstreamTools(clientTools: readonly OpenAITool[], s: AgentSession, byName: ReadonlyMap<string, CatalogTool>): OpenAITool[] {
  const core = new Set(s.coreTools);
  const first = clientTools.filter((t) => s.mode === "full" || core.has(t.function.name));
  const taken = new Set(first.map((t) => t.function.name));
  const own = new Map(clientTools.map((t) => [t.function.name, t]));
  // an activated client tool the client no longer declares has no schema to send
  const rest = promptTools(sessionPromptParts(byName, { ...s, activations: s.activations.filter((n) => byName.has(n)) })).filter(
    (t) => !taken.has(t.name),
  );
  return [...first, ...rest.map((t) => own.get(t.name) ?? (openaiTool(t) as OpenAITool))];
}

/** Append the frozen system section to the first system/developer message, or lead with it. */
export function withSystemSection(messages: readonly ChatMessage[], section: string): ChatMessage[] {
  if (!section) return [...messages];
  const i = messages.findIndex((m) => m.role === "system" || m.role === "developer");
  if (i < 0) return [{ role: "system", content: section }, ...messages];
  const m = messages[i]!;
  // content is a string or an array of parts; the section joins as text either way
  const content = Array.isArray(m.content) ? [...m.content, { type: "text", text: section }] : `${textOf(m.content)}\n\n${section}`;
  return [...messages.slice(0, i), { ...m, content }, ...messages.slice(i + 1)];
}

export function emptyUsage(): Usage {
  return { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } };
}

export function addUsage(sum: Usage, u: Partial<Usage> | null | undefined): Usage {
  if (!u) return sum;
  return {
    prompt_tokens: sum.prompt_tokens + (u.prompt_tokens ?? 0),
    completion_tokens: sum.completion_tokens + (u.completion_tokens ?? 0),
    total_tokens: sum.total_tokens + (u.total_tokens ?? 0),
    prompt_tokens_details: { cached_tokens: sum.prompt_tokens_details.cached_tokens + (u.prompt_tokens_details?.cached_tokens ?? 0) },
  };
}

/** Text content of a message ("" for none or non-text parts). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : ""))
      .join("");
  return "";
}
