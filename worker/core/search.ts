// toolSearch, pure: parse the query (`select:a,b` with full or grouped short names, `+required`
// words, `mcp__server` prefixes, `mcp__server` alone to browse, keywords; Chinese terms also in
// English through the glossary) and rank (rank.ts); search-result.ts renders the text the model
// gets back. Activation itself (which names are new for the session) is decided by the session's
// storage; this module only proposes names.

import type { AnyOrama } from "@orama/orama";
import { BROWSE_PAGE_SIZE, browseServer, onServer, type BrowseOutcome } from "./browse.ts";
import type { CatalogTool } from "./catalog.ts";
import { translateTerms } from "./glossary.ts";
import { expand, matchedWords, rerankByCoverage, topKeywords } from "./rank.ts";
import { exactFirst, exactNameHits } from "./exact-name.ts";
import { CJK_RUN, RANKING, tokenize } from "./search-text.ts";
import { closestNames, resolveSelectName } from "./select.ts";
import { STOP_WORDS, SYNONYMS } from "./vocabulary.ts";

export { rankKeywords, rerankByCoverage } from "./rank.ts";
export { closestNames };

export const MAX_QUERY = 1000;
export const MAX_SELECT = 20;
export const MAX_LIMIT = 20;
export const DEFAULT_LIMIT = 5;

export interface SearchCatalog {
  tools: readonly CatalogTool[];
  byName: ReadonlyMap<string, CatalogTool>;
  index: AnyOrama;
  /**
   * A union of catalogs (the tools a client declared over the session's catalog, see
   * client-tools.ts): keyword queries rank in each, exactly as alone, and merge by score.
   */
  sources?: readonly SearchCatalog[];
}

export function searchCatalog(tools: readonly CatalogTool[], index: AnyOrama): SearchCatalog {
  return { tools, byName: new Map(tools.map((t) => [t.name, t])), index };
}

/** Rank a query the way toolSearch does and return the best `k` names (eval, CLI). */
export function rankNames(cat: SearchCatalog, query: string, k: number): string[] {
  const outcome = runSearch(cat, parseQuery(query, undefined), k);
  if (outcome.kind === "keywords") return outcome.matches.map((m) => m.name);
  if (outcome.kind === "select") return outcome.found.map((t) => t.name).slice(0, k);
  if (outcome.kind === "browse") return outcome.tools.map((t) => t.name).slice(0, k);
  return [];
}

export type ParsedQuery =
  | { kind: "error"; message: string }
  | { kind: "select"; names: string[] }
  /** `mcp__<server>` alone (`page:N` optional): a page of that server's tools, nothing loaded */
  | { kind: "browse"; server: string; page: number; pageSize: number; exact?: string }
  /** `alternatives`: glossary alternatives of a Chinese query's terms, searched at expansion weight;
   * `exact`: the whole query, first if it is a tool's name (exact-name.ts) */
  | { kind: "keywords"; terms: string[]; required: string[]; server?: string; alternatives?: string[]; exact?: string };

export function parseQuery(query: unknown, limit: unknown): ParsedQuery {
  if (typeof query !== "string" || !query.trim())
    return { kind: "error", message: "Error: query is empty. Pass `select:<name>` or keywords." };
  if (query.length > MAX_QUERY) return { kind: "error", message: `Error: query is ${query.length} characters; the limit is ${MAX_QUERY}.` };
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT)) {
    return { kind: "error", message: `Error: limit must be an integer from 1 to ${MAX_LIMIT}.` };
  }
  const q = query.trim();
  if (/^select:/i.test(q)) {
    const names = [
      ...new Set(
        q
          .slice(7)
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean),
      ),
    ];
    if (names.length === 0) return { kind: "error", message: "Error: select: needs at least one tool name." };
    if (names.length > MAX_SELECT)
      return { kind: "error", message: `Error: select: takes at most ${MAX_SELECT} names; got ${names.length}.` };
    return { kind: "select", names };
  }
  const words = q.split(/\s+/);
  let server: string | undefined;
  let page: number | undefined;
  const rest: string[] = [];
  const required: string[] = [];
  for (const w of words) {
    const prefix = /^mcp__([a-zA-Z0-9_-]+?)(?:__)?$/.exec(w);
    const pageOf = /^page:(\d{1,6})$/i.exec(w);
    if (prefix && server === undefined) server = prefix[1];
    else if (pageOf && page === undefined) page = Number(pageOf[1]);
    else if (w.startsWith("+") && w.length > 1) required.push(...tokenize(w.slice(1)));
    else rest.push(w);
  }
  if (server !== undefined && !rest.length && !required.length) {
    if (page === 0) return { kind: "error", message: "Error: pages start at page:1." };
    return { kind: "browse", server, page: page ?? 1, pageSize: (limit as number | undefined) ?? BROWSE_PAGE_SIZE, exact: q };
  }
  if (page !== undefined) rest.push(`page:${page}`);
  const text = rest.join(" ");
  // CJK terms also search for their English (glossary), so English-described tools are found
  const english = translateTerms(text, CJK_RUN);
  const tokens = [...tokenize(text), ...tokenize(english.words.join(" "))];
  // single letters are left-overs ("I'm" -> "i", "m"), not words
  const meaningful = tokens.filter((w) => !STOP_WORDS.has(w) && !/^[a-z]$/.test(w));
  const terms = meaningful.length ? meaningful : tokens;
  if (!terms.length && !required.length && server === undefined) return { kind: "error", message: "Error: query has no searchable words." };
  const parsed: ParsedQuery = { kind: "keywords", terms: [...terms, ...required], required, server, exact: q };
  if (english.alternatives.length) parsed.alternatives = english.alternatives.flatMap(tokenize);
  return parsed;
}

export interface Match {
  name: string;
  description: string;
  score: number;
  /** the query's index words (synonyms and glossary English included) this tool holds; [] for select: */
  words: string[];
  /** the index fields holding those words (search-text.ts INDEX_CONFIG.fields); [] for select: */
  fields: string[];
}

export type SearchOutcome =
  | { kind: "error"; message: string }
  /** unknown: `ambiguous` when a bare short name is several tools' (suggestions are those tools);
   * `denied` when the name exists but is outside `candidates` (the access policy): refused, no suggestions */
  | { kind: "select"; found: CatalogTool[]; unknown: Array<{ name: string; suggestions: string[]; ambiguous?: true; denied?: true }> }
  | BrowseOutcome
  /** serverTotal: with `mcp__<server>`, how many tools that server has */
  | { kind: "keywords"; matches: Match[]; serverTotal?: number; server?: string };

/** Run a parsed query against the catalog. `candidates` limits what may be found (the session's access view). */
export function runSearch(cat: SearchCatalog, query: ParsedQuery, limit = DEFAULT_LIMIT, candidates?: ReadonlySet<string>): SearchOutcome {
  let parsed = query;
  if (parsed.kind === "error") return parsed;
  if (parsed.kind === "select") {
    const found: CatalogTool[] = [];
    const unknown: Array<{ name: string; suggestions: string[]; ambiguous?: true; denied?: true }> = [];
    for (const name of parsed.names) {
      const r = resolveSelectName(cat, name, candidates);
      if ("tool" in r) {
        if (!found.includes(r.tool)) found.push(r.tool);
      } else if ("denied" in r) unknown.push({ name, suggestions: [], denied: true });
      else if ("ambiguous" in r) unknown.push({ name, suggestions: r.ambiguous, ambiguous: true });
      else unknown.push({ name, suggestions: r.unknown });
    }
    return { kind: "select", found, unknown };
  }
  if (parsed.kind === "browse") {
    // a pasted exposed name looks like `mcp__<server>`: it is that tool, not a server to browse
    const exact = parsed.exact ?? "";
    if (!exactNameHits(cat.tools, exact, (n) => !candidates || candidates.has(n)).length)
      return browseServer(cat.tools, parsed.server, parsed.page, parsed.pageSize, candidates);
    parsed = { kind: "keywords", terms: tokenize(exact), required: [], exact };
  }
  if (cat.sources)
    return mergeOutcomes(
      cat,
      cat.sources.map((source) => runSearch(source, parsed, limit, candidates)),
      limit,
    );
  const allowed = (t: CatalogTool) =>
    (!candidates || candidates.has(t.name)) && (parsed.server === undefined || onServer(t, parsed.server));
  let ranked: Array<[string, number]>;
  const matched = new Set<string>();
  let all: string[] = [];
  if (parsed.terms.length) {
    const expanded = expand(parsed.terms, parsed.alternatives);
    all = expanded.all;
    const weights = expanded.weights;
    const depth = Math.max(RANKING.rerankDepth, limit);
    const filter = candidates || parsed.server !== undefined ? allowed : undefined;
    ranked = topKeywords(cat, all, depth, { required: parsed.required, weights, matched, allowed: filter });
  } else {
    ranked = cat.tools
      .filter(allowed)
      .map((t): [string, number] => [t.name, 0])
      .sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }
  // coverage counts only words the catalog has (the CJK bigrams of a Chinese query asking for
  // English-described tools match nothing and would only dilute it)
  const known = parsed.terms.filter((t) => matched.has(t) || SYNONYMS.get(t)?.some((x) => matched.has(x)));
  if (known.length > 1) ranked = rerankByCoverage(cat, ranked, known);
  if (parsed.exact)
    ranked = exactFirst(
      ranked,
      exactNameHits(cat.tools, parsed.exact, (n) => allowed(cat.byName.get(n)!)),
    );
  const top = ranked.slice(0, limit);
  const words = matchedWords(
    cat,
    top.map(([name]) => name),
    all,
  );
  const matches = top.map(([name, score]) => ({
    name,
    description: cat.byName.get(name)!.description,
    score: Math.round(score * 1000) / 1000,
    ...words.get(name)!,
  }));
  if (parsed.server === undefined) return { kind: "keywords", matches };
  return { kind: "keywords", matches, server: parsed.server, serverTotal: cat.tools.filter(allowed).length };
}

/** The keyword outcomes of a union's catalogs as one: best score first, each name once. */
function mergeOutcomes(cat: SearchCatalog, outcomes: SearchOutcome[], limit: number): SearchOutcome {
  const best = new Map<string, Match>();
  let server: string | undefined;
  let serverTotal = 0;
  for (const o of outcomes) {
    if (o.kind !== "keywords") return o;
    for (const m of o.matches) if (!best.has(m.name) || m.score > best.get(m.name)!.score) best.set(m.name, m);
    if (o.server !== undefined) ((server = o.server), (serverTotal += o.serverTotal ?? 0));
  }
  const ranked = [...best.values()].sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1)).slice(0, limit);
  // the union's byName says whose description a shared name has (the client's)
  const matches = ranked.map((m) => ({ ...m, description: cat.byName.get(m.name)!.description }));
  return server === undefined ? { kind: "keywords", matches } : { kind: "keywords", matches, server, serverTotal };
}
