// One toolSearch call, as the sessions route and the agent endpoint both answer it: parse, rank in
// the session's catalog, record the activation (passed in: the session object does it atomically),
// and the result text. In proxy mode the result also carries the loaded tools' schemas, since the
// model's tools list never changes there and it calls them through callTool.

import type { CatalogTool } from "./catalog.ts";
import type { Activation } from "./chat.ts";
import { toolDefinition } from "./prompt.ts";
import { DEFAULT_LIMIT, formatResult, parseQuery, runSearch, type Match, type SearchCatalog } from "./search.ts";

export interface ActivationResult {
  loaded: string[];
  alreadyLoaded: string[];
  activations: string[];
}

/** Record names as activated; null when the session no longer exists. */
export type Activate = (names: string[], query: string) => Promise<ActivationResult | null>;

export interface ToolSearchAnswer {
  result: string;
  loaded: string[];
  alreadyLoaded: string[];
  matches: Match[];
  activations?: string[];
}

export function proxySchemas(byName: ReadonlyMap<string, CatalogTool>, names: readonly string[]): string {
  if (!names.length) return "";
  const lines = names.flatMap((n) => (byName.has(n) ? [JSON.stringify(toolDefinition(byName.get(n)!))] : []));
  return `\n\nSchemas (call with callTool({"name": ..., "arguments": {...}})):\n${lines.join("\n")}`;
}

export async function answerToolSearch(
  cat: SearchCatalog,
  session: { mode: "deferred" | "full"; activation: Activation },
  query: unknown,
  limit: unknown,
  activate: Activate,
): Promise<ToolSearchAnswer | null> {
  const parsed = parseQuery(query, limit);
  if (session.mode === "full" && parsed.kind !== "error") {
    return { result: "All tools are already loaded in this session; call them directly.", loaded: [], alreadyLoaded: [], matches: [] };
  }
  const outcome = runSearch(cat, parsed, (limit as number | undefined) ?? DEFAULT_LIMIT);
  const names = outcome.kind === "select" ? outcome.found.map((t) => t.name) : outcome.kind === "keywords" ? outcome.matches.map((m) => m.name) : [];
  // bad queries are answers for the model, not failures: nothing is recorded for them
  const activation = outcome.kind === "error" ? { loaded: [], alreadyLoaded: [], activations: undefined } : await activate(names, String(query));
  if (!activation) return null;
  const listed = (tools: readonly CatalogTool[], score: number) => tools.map((t) => ({ name: t.name, description: t.description, score, words: [] as string[] }));
  // a browse loads nothing: its matches are the page it shows
  const matches = outcome.kind === "keywords" ? outcome.matches : outcome.kind === "select" ? listed(outcome.found, 1) : outcome.kind === "browse" ? listed(outcome.tools, 0) : [];
  const proxy = session.activation === "proxy";
  let result = formatResult(outcome, activation.loaded, activation.alreadyLoaded, typeof query === "string" ? query : "", proxy ? "callTool" : "tools");
  if (proxy) result += proxySchemas(cat.byName, [...activation.loaded, ...activation.alreadyLoaded]);
  return { result, loaded: activation.loaded, alreadyLoaded: activation.alreadyLoaded, matches, activations: activation.activations };
}
