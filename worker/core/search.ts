// toolSearch, pure: parse the query (`select:a,b`, `+required` words, `mcp__server` prefixes,
// keywords; Chinese terms also in English through the glossary), rank (rank.ts), and format the
// text the model gets back. Activation itself (which names are new for the session) is decided
// by the session's storage; this module only proposes names and renders the outcome.

import type { AnyOrama } from "@orama/orama";
import type { CatalogTool } from "./catalog.ts";
import { translateTerms } from "./glossary.ts";
import { expand, rerankByCoverage, topKeywords } from "./rank.ts";
import { CJK_RUN, RANKING, tokenize } from "./search-text.ts";
import { STOP_WORDS, SYNONYMS } from "./vocabulary.ts";

export { rankKeywords, rerankByCoverage } from "./rank.ts";

export const MAX_QUERY = 1000;
export const MAX_SELECT = 20;
export const MAX_LIMIT = 20;
export const DEFAULT_LIMIT = 5;

export interface SearchCatalog {
  tools: readonly CatalogTool[];
  byName: ReadonlyMap<string, CatalogTool>;
  index: AnyOrama;
}

export function searchCatalog(tools: readonly CatalogTool[], index: AnyOrama): SearchCatalog {
  return { tools, byName: new Map(tools.map((t) => [t.name, t])), index };
}

/** Rank a query the way toolSearch does and return the best `k` names (eval, CLI). */
export function rankNames(cat: SearchCatalog, query: string, k: number): string[] {
  const outcome = runSearch(cat, parseQuery(query, undefined), k);
  if (outcome.kind === "keywords") return outcome.matches.map((m) => m.name);
  if (outcome.kind === "select") return outcome.found.map((t) => t.name).slice(0, k);
  return [];
}

export type ParsedQuery =
  | { kind: "error"; message: string }
  | { kind: "select"; names: string[] }
  /** `alternatives`: glossary alternatives of a Chinese query's terms, searched at expansion weight */
  | { kind: "keywords"; terms: string[]; required: string[]; server?: string; alternatives?: string[] };

export function parseQuery(query: unknown, limit: unknown): ParsedQuery {
  if (typeof query !== "string" || !query.trim()) return { kind: "error", message: "Error: query is empty. Pass `select:<name>` or keywords." };
  if (query.length > MAX_QUERY) return { kind: "error", message: `Error: query is ${query.length} characters; the limit is ${MAX_QUERY}.` };
  if (limit !== undefined && (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_LIMIT)) {
    return { kind: "error", message: `Error: limit must be an integer from 1 to ${MAX_LIMIT}.` };
  }
  const q = query.trim();
  if (/^select:/i.test(q)) {
    const names = [...new Set(q.slice(7).split(",").map((n) => n.trim()).filter(Boolean))];
    if (names.length === 0) return { kind: "error", message: "Error: select: needs at least one tool name." };
    if (names.length > MAX_SELECT) return { kind: "error", message: `Error: select: takes at most ${MAX_SELECT} names; got ${names.length}.` };
    return { kind: "select", names };
  }
  const words = q.split(/\s+/);
  let server: string | undefined;
  const rest: string[] = [];
  const required: string[] = [];
  for (const w of words) {
    const prefix = /^mcp__([a-zA-Z0-9_-]+?)(?:__)?$/.exec(w);
    if (prefix && server === undefined) server = prefix[1];
    else if (w.startsWith("+") && w.length > 1) required.push(...tokenize(w.slice(1)));
    else rest.push(w);
  }
  const text = rest.join(" ");
  // CJK terms also search for their English (glossary), so English-described tools are found
  const english = translateTerms(text, CJK_RUN);
  const tokens = [...tokenize(text), ...tokenize(english.words.join(" "))];
  // single letters are left-overs ("I'm" -> "i", "m"), not words
  const meaningful = tokens.filter((w) => !STOP_WORDS.has(w) && !/^[a-z]$/.test(w));
  const terms = meaningful.length ? meaningful : tokens;
  if (!terms.length && !required.length && server === undefined) return { kind: "error", message: "Error: query has no searchable words." };
  const parsed: ParsedQuery = { kind: "keywords", terms: [...terms, ...required], required, server };
  if (english.alternatives.length) parsed.alternatives = english.alternatives.flatMap(tokenize);
  return parsed;
}

export interface Match {
  name: string;
  description: string;
  score: number;
}

export type SearchOutcome =
  | { kind: "error"; message: string }
  /** `denied`: the name exists but is outside `candidates` (the access policy): refused, no suggestions */
  | { kind: "select"; found: CatalogTool[]; unknown: Array<{ name: string; suggestions: string[]; denied?: true }> }
  | { kind: "keywords"; matches: Match[]; serverTools?: string[] };

/** Run a parsed query against the catalog. `candidates` limits what may be found (the session's access view). */
export function runSearch(cat: SearchCatalog, parsed: ParsedQuery, limit = DEFAULT_LIMIT, candidates?: ReadonlySet<string>): SearchOutcome {
  if (parsed.kind === "error") return parsed;
  if (parsed.kind === "select") {
    const found: CatalogTool[] = [];
    const unknown: Array<{ name: string; suggestions: string[]; denied?: true }> = [];
    for (const name of parsed.names) {
      const tool = cat.byName.get(name);
      if (tool && (!candidates || candidates.has(name))) found.push(tool);
      else if (tool) unknown.push({ name, suggestions: [], denied: true });
      else unknown.push({ name, suggestions: closestNames(cat, name, 3, candidates) });
    }
    return { kind: "select", found, unknown };
  }
  const allowed = (t: CatalogTool) => (!candidates || candidates.has(t.name)) && (parsed.server === undefined || t.name.startsWith(`mcp__${parsed.server}__`));
  let ranked: Array<[string, number]>;
  const matched = new Set<string>();
  if (parsed.terms.length) {
    const { all, weights } = expand(parsed.terms, parsed.alternatives);
    const depth = Math.max(RANKING.rerankDepth, limit);
    const filter = candidates || parsed.server !== undefined ? allowed : undefined;
    ranked = topKeywords(cat, all, depth, { required: parsed.required, weights, matched, allowed: filter });
  } else {
    ranked = cat.tools.filter(allowed).map((t): [string, number] => [t.name, 0]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  }
  // coverage counts only words the catalog has (the CJK bigrams of a Chinese query asking for
  // English-described tools match nothing and would only dilute it)
  const known = parsed.terms.filter((t) => matched.has(t) || SYNONYMS.get(t)?.some((x) => matched.has(x)));
  if (known.length > 1) ranked = rerankByCoverage(cat, ranked, known);
  const matches = ranked.slice(0, limit).map(([name, score]) => ({ name, description: cat.byName.get(name)!.description, score: Math.round(score * 1000) / 1000 }));
  const serverTools = parsed.server !== undefined ? cat.tools.filter(allowed).map((t) => t.name) : undefined;
  return { kind: "keywords", matches, serverTools };
}

/** Levenshtein distance, capped work: names are at most 64 characters. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

const nameWords = new WeakMap<readonly CatalogTool[], Array<Set<string>>>();

/**
 * The 3 existing names closest to an unknown one: most shared words first, then edit distance.
 * Edit distance runs only on the best 100 by shared words and length (a select: of 20 unknown
 * names against 10,000 tools took seconds when every pair was compared).
 */
export function closestNames(cat: SearchCatalog, name: string, count = 3, candidates?: ReadonlySet<string>): string[] {
  let words = nameWords.get(cat.tools);
  if (!words) nameWords.set(cat.tools, (words = cat.tools.map((t) => new Set(tokenize(t.name)))));
  const wanted = name.slice(0, 64).toLowerCase();
  const query = [...new Set(tokenize(wanted))];
  // bucket by (shared words, length gap) instead of sorting every tool: linear in catalog size
  const buckets = new Map<number, number[]>();
  cat.tools.forEach((t, i) => {
    if (candidates && !candidates.has(t.name)) return;
    let shared = 0;
    for (const w of query) if (words[i]!.has(w)) shared++;
    const key = shared * 1000 + (999 - Math.min(999, Math.abs(t.name.length - wanted.length)));
    const list = buckets.get(key);
    if (list) list.push(i);
    else buckets.set(key, [i]);
  });
  const picked: number[] = [];
  for (const key of [...buckets.keys()].sort((a, b) => b - a)) {
    picked.push(...buckets.get(key)!);
    if (picked.length >= 100) break;
  }
  const shortlist = picked.slice(0, 100).map((i) => {
    const t = cat.tools[i]!;
    return { name: t.name, shared: query.filter((w) => words[i]!.has(w)).length, dist: distance(wanted, t.name.toLowerCase()) };
  });
  shortlist.sort((a, b) => b.shared - a.shared || a.dist - b.dist || (a.name < b.name ? -1 : 1));
  return shortlist.slice(0, count).map((s) => s.name);
}

const oneLine = (text: string, max = 160) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** The tool-result text for the model, once the session has said which names were new. */
/** The result text; `via: "callTool"` (proxy activation) says how loaded tools are called there. */
export function formatResult(outcome: SearchOutcome, loaded: readonly string[], alreadyLoaded: readonly string[], query: string, via: "tools" | "callTool" = "tools"): string {
  if (outcome.kind === "error") return outcome.message;
  const lines: string[] = [];
  const byName = new Map<string, string>();
  if (outcome.kind === "select") outcome.found.forEach((t) => byName.set(t.name, t.description));
  else outcome.matches.forEach((m) => byName.set(m.name, m.description));
  if (loaded.length) {
    const how = via === "callTool" ? "call through callTool" : loaded.length > 1 ? "they are now in your tools list, call them directly" : "it is now in your tools list, call it directly";
    lines.push(loaded.length > 1 ? `Loaded ${loaded.length} tools; ${how}:` : `Loaded 1 tool; ${how}:`);
    for (const n of loaded) lines.push(`- ${n}: ${oneLine(byName.get(n) ?? "")}`);
  }
  if (alreadyLoaded.length) lines.push(`Already loaded — call ${alreadyLoaded.join(", ")} ${via === "callTool" ? "through callTool" : "directly now"}.`);
  if (outcome.kind === "select") {
    for (const u of outcome.unknown) {
      lines.push(u.denied ? `Tool ${oneLine(u.name, 80)} is not available in this session (access policy).` : `Unknown tool "${oneLine(u.name, 80)}". Closest names: ${u.suggestions.join(", ")}.`);
    }
  } else {
    if (outcome.serverTools && outcome.serverTools.length > loaded.length + alreadyLoaded.length) {
      lines.push(`All tools of this server (load more with select:): ${outcome.serverTools.join(", ")}`);
    }
    if (!outcome.matches.length) lines.push(`No tools matched "${oneLine(query, 80)}". Try other keywords, or select: with an exact name from the deferred tools list.`);
  }
  return lines.join("\n");
}
