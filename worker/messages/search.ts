// Anthropic's tool search server tools, answered by the Worker whatever the model. The regex form
// reaches the upstream as a function of the same name (request.ts) whose calls are answered here in
// a hidden round: the pattern (core/pattern.ts: Python-style, at most 200 characters, linear time) is
// matched (core/regex-search.ts) over the name and description of each tool the session's access view lets it find
// (denied and disabled tools are never searched, R2-L2), and up to 5 matching tools are loaded,
// appended like any search; those the session's gate still refuses are left out. Linear is not
// cheap (R2-M4): the request's searches share REGEX_SEARCH_BUDGET state visits, and pause every
// REGEX_SLICE visits so that other requests run meanwhile; past the budget the call answers
// `execution_time_exceeded`. A bad pattern is `invalid_pattern`. The bm25 form is the Worker's own
// toolSearch (its ranking is BM25). Either way the client gets what a search found of its own tools
// as server_tool_use + tool_search_tool_result blocks (respond.ts).

import type { AccessView } from "../core/access.ts";
import type { CatalogTool } from "../core/catalog.ts";
import type { ToolCall } from "../core/chat.ts";
import type { SearchCatalog } from "../core/search.ts";
import type { Activate } from "../core/tool-search.ts";
import type { ChatTurn } from "../chat/turn.ts";
import { Budget, BudgetExceeded, compilePattern, PatternError, type Pattern } from "../core/pattern.ts";
import { matching, REGEX_SEARCH_BUDGET, REGEX_SLICE } from "../core/regex-search.ts";
import type { SearchReport } from "./respond.ts";
import type { ToolPlan } from "./tools.ts";

/** queries of activations that are not searches: a call or tool_choice loading its tool, a tool_reference */
const NOT_SEARCHES = /^(call|tool_choice|reference):/;

type Answer = (
  call: ToolCall,
  ctx: { catalog: SearchCatalog; activate: Activate; view?: AccessView },
) => Promise<{ result: string; activations?: readonly string[] } | undefined>;

const pause = () => new Promise<void>((r) => setTimeout(r, 0));

/** The tools a regex search may find: the view's candidates (everything without a view) but the search tool itself. */
function* searchable(catalog: SearchCatalog, view: AccessView | undefined, self: string): Iterable<CatalogTool> {
  for (const t of catalog.tools) if (t.name !== self && (!view?.candidates || view.candidates.has(t.name))) yield t;
}

/** The hook answering the regex tool's calls, and the log of what each call found. */
export function regexAnswer(plan: ToolPlan): { answer?: Answer; log: SearchReport[] } {
  const log: SearchReport[] = [];
  const name = plan.search.regex;
  if (!name) return { log };
  const budget = new Budget(REGEX_SEARCH_BUDGET, REGEX_SLICE);
  const answer: Answer = async (call, { catalog, activate, view }) => {
    if (call.function.name !== name) return undefined;
    let pattern: unknown;
    try {
      pattern = (JSON.parse(call.function.arguments || "{}") as { pattern?: unknown }).pattern;
    } catch {
      pattern = undefined;
    }
    const input = { pattern: typeof pattern === "string" ? pattern : "" };
    let compiled: Pattern;
    try {
      if (typeof pattern !== "string") throw new PatternError('pass {"pattern": "<regular expression>"}');
      compiled = compilePattern(pattern);
    } catch (e) {
      if (!(e instanceof PatternError)) throw e;
      log.push({ kind: "regex", name, input, found: { error: "invalid_pattern" } });
      return { result: `Error: invalid_pattern: ${e.message}` };
    }
    let matched: CatalogTool[];
    try {
      matched = await matching(compiled, searchable(catalog, view, name), budget, pause);
    } catch (e) {
      if (!(e instanceof BudgetExceeded)) throw e;
      log.push({ kind: "regex", name, input, found: { error: "execution_time_exceeded" } });
      return {
        result:
          `Error: execution_time_exceeded: this request's regex searches used up their budget of ${REGEX_SEARCH_BUDGET} ` +
          `state visits (the pattern's live states times the characters searched). Search with a shorter, more specific ` +
          `pattern (a word of the tool's name, an anchor such as ^mcp__github, no long counted repetitions like {1000}), ` +
          `or use the tools already loaded.`,
      };
    }
    const names = matched.map((t) => t.name);
    const none = { result: `No tool matches the pattern ${JSON.stringify(input.pattern)}. Try a broader one.` };
    if (!names.length) return (log.push({ kind: "regex", name, input, found: [] }), none);
    const activation = await activate(names, `regex:${input.pattern}`, { matched: names.length, via: "chat" });
    // the session's gate may refuse what the view offered (a rule changed since): not loaded, not named
    const refused = new Set(activation.denied ?? []);
    const shown = matched.filter((t) => !refused.has(t.name));
    log.push({ kind: "regex", name, input, found: shown.map((t) => t.name).filter((n) => plan.custom.has(n)) });
    if (!shown.length) return none;
    const lines = shown.map((t) => `- ${t.name}: ${t.description.split("\n")[0]!.slice(0, 160)}`);
    return {
      result: `Loaded ${shown.length} tools matching ${JSON.stringify(input.pattern)}; call them directly now:\n${lines.join("\n")}`,
      activations: activation.activations,
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
