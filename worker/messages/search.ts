// Anthropic's tool search server tools, answered by the Worker whatever the model. The regex form
// reaches the upstream as a function of the same name (request.ts) whose calls are answered here in
// a hidden round: the pattern (core/pattern.ts: Python-style, at most 200 characters, linear time) is
// matched over each tool's name and description, and up to 5 matching tools are loaded, appended
// like any search. A bad pattern is `invalid_pattern`. The bm25 form is the Worker's own toolSearch
// (its ranking is BM25). Either way the client gets what a search found of its own tools as
// server_tool_use + tool_search_tool_result blocks (respond.ts).

import type { ToolCall } from "../core/chat.ts";
import type { SearchCatalog } from "../core/search.ts";
import type { Activate } from "../core/tool-search.ts";
import type { ChatTurn } from "../chat/turn.ts";
import { compilePattern, PatternError } from "../core/pattern.ts";
import type { SearchReport } from "./respond.ts";
import type { ToolPlan } from "./tools.ts";

export const REGEX_LIMIT = 5;
/** queries of activations that are not searches: a call or tool_choice loading its tool, a tool_reference */
const NOT_SEARCHES = /^(call|tool_choice|reference):/;

type Answer = (
  call: ToolCall,
  ctx: { catalog: SearchCatalog; activate: Activate },
) => Promise<{ result: string; activations?: readonly string[] } | undefined>;

/** The hook answering the regex tool's calls, and the log of what each call found. */
export function regexAnswer(plan: ToolPlan): { answer?: Answer; log: SearchReport[] } {
  const log: SearchReport[] = [];
  const name = plan.search.regex;
  if (!name) return { log };
  const answer: Answer = async (call, { catalog, activate }) => {
    if (call.function.name !== name) return undefined;
    let pattern: unknown;
    try {
      pattern = (JSON.parse(call.function.arguments || "{}") as { pattern?: unknown }).pattern;
    } catch {
      pattern = undefined;
    }
    const input = { pattern: typeof pattern === "string" ? pattern : "" };
    let test: (s: string) => boolean;
    try {
      if (typeof pattern !== "string") throw new PatternError('pass {"pattern": "<regular expression>"}');
      test = compilePattern(pattern).test;
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      log.push({ kind: "regex", name, input, found: { error: "invalid_pattern" } });
      return { result: `Error: invalid_pattern: ${e.message}` };
    }
    const matched = catalog.tools.filter((t) => t.name !== name && test(`${t.name}\n${t.description}`)).slice(0, REGEX_LIMIT);
    const names = matched.map((t) => t.name);
    log.push({ kind: "regex", name, input, found: names.filter((n) => plan.custom.has(n)) });
    if (!names.length) return { result: `No tool matches the pattern ${JSON.stringify(input.pattern)}. Try a broader one.` };
    const { activations } = await activate(names, `regex:${input.pattern}`, { matched: names.length, via: "chat" });
    const lines = matched.map((t) => `- ${t.name}: ${t.description.split("\n")[0]!.slice(0, 160)}`);
    return {
      result: `Loaded ${names.length} tools matching ${JSON.stringify(input.pattern)}; call them directly now:\n${lines.join("\n")}`,
      activations,
    };
  };
  return { answer, log };
}

/** What the turn's searches found of the client's tools, as its search tools report it. */
export function searchReports(plan: ToolPlan, searches: ChatTurn["searches"], regexLog: readonly SearchReport[]): SearchReport[] {
  const name = plan.search.bm25 ?? plan.search.regex;
  if (!name) return [];
  const kind = plan.search.bm25 ? "bm25" : "regex";
  const viaToolSearch = searches
    .filter((s) => !NOT_SEARCHES.test(s.query) && !s.query.startsWith("regex:"))
    .map((s): SearchReport => ({ kind, name, input: { query: s.query }, found: s.names.filter((n) => plan.custom.has(n)) }));
  return [...viaToolSearch, ...regexLog];
}
