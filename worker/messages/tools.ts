// A Messages request's tools, and how they are deferred, pure. Three shapes, as clients send them:
// - the client brings its own search (Claude Code: tools marked `defer_loading` and a placeholder,
//   its ToolSearch client tool answering with tool_reference blocks), and no Anthropic search
//   tool: the Worker adds no second search. A deferred tool reaches the upstream only once a
//   tool_reference named it, appended after the tools sent from the start in the order the
//   references came (the history only grows, so the tools list only grows); the placeholder never.
//   Catalog tools stay out unless the request asks for them.
// - Anthropic's tool search server tools (bm25, regex): the deferred tools are deferred by the chat
//   path (the client's flag, core/client-tools.ts), the Worker's search answers, and what it
//   loaded is reported as server_tool_use + tool_search_tool_result blocks (respond.ts).
// - neither: the Worker defers the client's tools by its own rules, as on chat.
// Other server tools (web search, code execution, ...) have nothing to run them here: left out, and named.

import type { OpenAITool } from "../core/chat.ts";
import { isCustomTool, SEARCH_TOOL_TYPES, type CustomTool, type MessagesBody } from "../wire/messages.ts";
import { badField } from "./translate.ts";

/** Claude Code's stand-in tool, marked defer_loading so a deferred-only list is never empty: never sent on. */
export const PLACEHOLDER_NAME = "DeferredToolPlaceholder";

export type SearchKind = "bm25" | "regex";

export interface ToolPlan {
  /** the chat tools the turn declares (OpenAI's defer_loading flag where the chat path defers them) */
  tools: OpenAITool[];
  /** the client brings its own search: every tool above is kept loaded, catalog tools stay out unless asked */
  ownSearch: boolean;
  /** Anthropic search tools declared, by kind, with the name the client gave each */
  search: Partial<Record<SearchKind, string>>;
  /** referenced tools the chat path must load (appended, through the session) */
  load: string[];
  /** server tool types nothing here runs */
  ignored: string[];
  /** the client's custom tools by name (tool_choice, count_tokens) */
  custom: Map<string, CustomTool>;
}

/** A custom tool as a chat function tool; `defer` keeps OpenAI's flag for the chat path's plan. */
export function chatTool(t: CustomTool, defer: boolean): OpenAITool {
  const fn: OpenAITool["function"] = { name: t.name };
  if (t.description !== undefined) fn.description = t.description;
  fn.parameters = t.input_schema;
  return defer ? { type: "function", function: fn, defer_loading: true } : { type: "function", function: fn };
}

export function toolPlan(body: Pick<MessagesBody, "tools" | "tool_choice">, references: readonly string[]): ToolPlan {
  const custom = new Map<string, CustomTool>();
  const search: ToolPlan["search"] = {};
  const ignored = new Set<string>();
  for (const t of body.tools ?? []) {
    if (isCustomTool(t)) custom.set(t.name, t);
    else if (t.type === SEARCH_TOOL_TYPES[0]) search.bm25 = String(t.name);
    else if (t.type === SEARCH_TOOL_TYPES[1]) search.regex = String(t.name);
    else ignored.add(String(t.type));
  }
  const own = [...custom.values()].filter((t) => t.name !== PLACEHOLDER_NAME);
  const deferred = own.filter((t) => t.defer_loading === true);
  const ownSearch = (deferred.length > 0 || custom.has(PLACEHOLDER_NAME)) && !search.bm25 && !search.regex;
  const choice = body.tool_choice;
  if (choice?.type === "tool" && !custom.has(choice.name))
    throw badField("tool_choice.name", `"${choice.name.slice(0, 80)}" is not one of the request's tools`);
  const referenced = references.filter((n) => custom.has(n) && n !== PLACEHOLDER_NAME);
  let tools: OpenAITool[];
  let load: string[] = [];
  if (ownSearch) {
    const byName = new Map(deferred.map((t) => [t.name, t]));
    const later = referenced.filter((n) => byName.has(n)).map((n) => byName.get(n)!);
    // a forced deferred tool must be callable: it joins like a referenced one
    if (choice?.type === "tool" && byName.has(choice.name) && !later.includes(byName.get(choice.name)!))
      later.push(byName.get(choice.name)!);
    tools = [...own.filter((t) => t.defer_loading !== true), ...later].map((t) => chatTool(t, false));
  } else {
    tools = own.map((t) => chatTool(t, t.defer_loading === true));
    load = referenced;
  }
  return { tools, ownSearch, search, load, ignored: [...ignored].sort(), custom };
}
