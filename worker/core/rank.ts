// Keyword ranking, pure: BM25F over whole words of the catalog's restored Orama index (Orama's
// own search expands every word as a prefix, which buries long queries), then a rerank of the
// top by how much of the query a tool's name covers. Used by toolSearch (search.ts) in the
// Worker and by the CLI's search and eval, so both rank identically.

import type { AnyOrama } from "@orama/orama";
import type { CatalogTool } from "./catalog.ts";
import { INDEX_CONFIG, RANKING, tokenize } from "./search-text.ts";
import { decodePosting } from "./tool-index.ts";
import { EXPANSION_WEIGHT, STOP_WORDS, SYNONYMS } from "./vocabulary.ts";

export interface RankCatalog {
  tools: readonly CatalogTool[];
  byName: ReadonlyMap<string, CatalogTool>;
  index: AnyOrama;
}

interface IndexData {
  /** field -> word -> encodePosting([id, count, id, count, ...]) (tool-index.ts) */
  frequencies: Record<string, Record<string, string | undefined>>;
  fieldLengths: Record<string, Record<number, number | undefined>>;
  avgFieldLength: Record<string, number>;
}

/** One word's BM25F evidence: the documents (internal ids) that hold it, their pseudo counts, and in which fields (bit i: INDEX_CONFIG.fields[i]). */
interface Posting {
  ids: Int32Array;
  tfs: Float64Array;
  fields: Uint8Array;
}

/**
 * Postings per index, computed on first use of a word and kept: a word's evidence depends only
 * on the index and RANKING, and the common words of queries recur, so a warm isolate reads one
 * typed array per word instead of four postings and as many field lengths. Bounded: the
 * cache is dropped when it holds MAX_CACHED words, or when RANKING changed (tuning scripts).
 */
const MAX_CACHED = 20_000;
interface WordCache {
  key: string;
  words: Map<string, Posting>;
  /** per-document sums and field bits while one posting is built, zeroed again after */
  scratch: Float64Array;
  bits: Uint8Array;
}
const caches = new WeakMap<AnyOrama, WordCache>();

function posting(index: AnyOrama, term: string, n: number): Posting {
  const key = JSON.stringify([RANKING.boost, RANKING.b]);
  let cache = caches.get(index);
  if (!cache || cache.key !== key || cache.words.size >= MAX_CACHED)
    caches.set(index, (cache = { key, words: new Map(), scratch: new Float64Array(n + 1), bits: new Uint8Array(n + 1) }));
  const hit = cache.words.get(term);
  if (hit) return hit;
  const data = (index as unknown as { data: { index: IndexData } }).data.index;
  // BM25F: the fields' counts, each weighted and length-normalised, add up to one pseudo count
  // that saturates once under one document-level idf (summing per-field BM25 scores instead
  // let a word common in descriptions count as rare when it sat in a short name)
  const { scratch: sums, bits } = cache;
  const touched: number[] = [];
  for (const [f, field] of INDEX_CONFIG.fields.entries()) {
    // typeof: a query word like "constructor" reads Object.prototype, never a posting
    const text = data.frequencies[field]![term];
    if (typeof text !== "string") continue;
    const pairs = decodePosting(text);
    const avg = data.avgFieldLength[field] || 1;
    const boost = RANKING.boost[field]!;
    const lengths = data.fieldLengths[field]!;
    for (let i = 0; i < pairs.length; i += 2) {
      const id = pairs[i]!;
      const tf = pairs[i + 1]!;
      if (sums[id] === 0) touched.push(id);
      sums[id] = sums[id]! + (boost * tf) / (1 - RANKING.b + (RANKING.b * (lengths[id] ?? 0)) / avg);
      bits[id] = bits[id]! | (1 << f);
    }
  }
  const p = {
    ids: Int32Array.from(touched),
    tfs: Float64Array.from(touched, (id) => sums[id]!),
    fields: Uint8Array.from(touched, (id) => bits[id]!),
  };
  for (const id of touched) sums[id] = bits[id] = 0;
  cache.words.set(term, p);
  return p;
}

/**
 * The query's words plus their synonyms and glossary alternatives, which weigh EXPANSION_WEIGHT
 * unless also typed. A word typed c > 1 times weighs 1 + RANKING.queryTf * ln(c): in a long
 * query the repeated word is what the task is about.
 */
export function expand(terms: readonly string[], alternatives: readonly string[] = []): { all: string[]; weights: Map<string, number> } {
  const typed = new Set(terms);
  const weights = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  for (const [t, c] of counts) if (c > 1) weights.set(t, 1 + RANKING.queryTf * Math.log(c));
  for (const t of typed) for (const syn of SYNONYMS.get(t) ?? []) if (!typed.has(syn)) weights.set(syn, EXPANSION_WEIGHT);
  for (const alt of alternatives) if (!typed.has(alt) && !STOP_WORDS.has(alt)) weights.set(alt, EXPANSION_WEIGHT);
  return { all: [...new Set([...typed, ...weights.keys()])], weights };
}

/** Scores by internal id (1-based, catalog order) and the ids that have one. */
interface Scored {
  ids: number[];
  scores: Float64Array;
}

function scoreDocs(
  cat: RankCatalog,
  terms: readonly string[],
  required: readonly string[],
  weights?: ReadonlyMap<string, number>,
  matched?: Set<string>,
): Scored {
  const n = cat.tools.length;
  const scores = new Float64Array(n + 1);
  const hits = new Uint16Array(n + 1); // how many required words each document holds
  const need = new Set(required);
  const touched: number[] = [];
  const k1 = RANKING.k1;
  for (const term of new Set(terms)) {
    const { ids, tfs } = posting(cat.index, term, n);
    if (!ids.length) continue;
    matched?.add(term);
    const weight = Math.log(1 + (n - ids.length + 0.5) / (ids.length + 0.5)) * (weights?.get(term) ?? 1);
    const isRequired = need.has(term);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      const tf = tfs[i]!;
      if (scores[id] === 0) touched.push(id);
      scores[id] = scores[id]! + (weight * tf * (k1 + 1)) / (tf + k1); // > 0: idf > 0 and tf > 0
      if (isRequired) hits[id]!++;
    }
  }
  if (RANKING.textless !== 1) {
    // a tool has search text when either text field holds a word (tool-index.ts keeps every field)
    const lengths = (cat.index as unknown as { data: { index: IndexData } }).data.index.fieldLengths;
    for (const id of touched) if (!(lengths.queries?.[id] || lengths.keywords?.[id])) scores[id] = scores[id]! * RANKING.textless;
  }
  return { ids: need.size ? touched.filter((id) => hits[id]! >= need.size) : touched, scores };
}

/**
 * BM25F score of every tool holding a query word, by exposed name. `required` words must all be
 * present; `weights` scale words (expansions, repeats); `matched` receives the words found.
 */
export function rankKeywords(
  cat: RankCatalog,
  terms: readonly string[],
  required: readonly string[] = [],
  weights?: ReadonlyMap<string, number>,
  matched?: Set<string>,
): Map<string, number> {
  const { ids, scores } = scoreDocs(cat, terms, required, weights, matched);
  return new Map(ids.map((id) => [cat.tools[id - 1]!.name, scores[id]!]));
}

/**
 * The best `depth` tools among `allowed`, best first, ties by name. Only those are sorted: a long
 * query touches most of a 3,000-tool catalog, and sorting all of it was most of a search.
 */
export function topKeywords(
  cat: RankCatalog,
  terms: readonly string[],
  depth: number,
  opts: {
    required?: readonly string[];
    weights?: ReadonlyMap<string, number>;
    matched?: Set<string>;
    allowed?: (t: CatalogTool) => boolean;
  } = {},
): Array<[string, number]> {
  const { ids: all, scores } = scoreDocs(cat, terms, opts.required ?? [], opts.weights, opts.matched);
  const ids = opts.allowed ? all.filter((id) => opts.allowed!(cat.tools[id - 1]!)) : all;
  let kept = ids;
  if (ids.length > depth) {
    // the depth-th best score by a native numeric sort; every tie at it stays, so names decide
    const sorted = Float64Array.from(ids, (id) => scores[id]!).sort();
    const bar = sorted[sorted.length - depth]!;
    kept = ids.filter((id) => scores[id]! >= bar);
  }
  const top = kept.map((id): [string, number] => [cat.tools[id - 1]!.name, scores[id]!]);
  top.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return top.slice(0, depth);
}

/**
 * The words of `terms` each named tool holds in any indexed field, in `terms` order, and the
 * fields (INDEX_CONFIG order) those words are in: what a result matched (the page shows both;
 * `queries`/`keywords` say the search text found it). Both from the cached postings the ranking
 * read.
 */
export function matchedWords(
  cat: RankCatalog,
  names: readonly string[],
  terms: readonly string[],
): Map<string, { words: string[]; fields: string[] }> {
  const out = new Map(names.map((n): [string, { words: string[]; fields: string[] }] => [n, { words: [], fields: [] }]));
  const ids = new Map<number, string>();
  cat.tools.forEach((t, i) => out.has(t.name) && ids.set(i + 1, t.name));
  const found = new Map(names.map((n) => [n, 0]));
  for (const term of new Set(terms)) {
    const p = posting(cat.index, term, cat.tools.length);
    for (let i = 0; i < p.ids.length; i++) {
      const name = ids.get(p.ids[i]!);
      if (name === undefined) continue;
      out.get(name)!.words.push(term);
      found.set(name, found.get(name)! | p.fields[i]!);
    }
  }
  for (const [name, m] of out) m.fields = INDEX_CONFIG.fields.filter((_, f) => found.get(name)! & (1 << f));
  return out;
}

const nameWords = new WeakMap<readonly CatalogTool[], Map<string, Set<string>>>();

/** A tool's name, title and server words (cached per catalog: the rerank reads them per query). */
function wordsOf(cat: RankCatalog, t: CatalogTool): Set<string> {
  let byTool = nameWords.get(cat.tools);
  if (!byTool) nameWords.set(cat.tools, (byTool = new Map()));
  let words = byTool.get(t.name);
  if (!words) byTool.set(t.name, (words = new Set([...tokenize(`${t.originalName} ${t.title ?? ""}`), ...tokenize(t.server)])));
  return words;
}

/**
 * Second stage over the BM25F top: boost tools whose name and server words cover more of the
 * query's distinct words ("devtools click element": chrome-devtools/click covers two of three,
 * playwright/browser_click one). BM25F alone lets one rare word in a long name outweigh that.
 * A word is covered by itself or by a synonym ("repo" by create_repository).
 */
export function rerankByCoverage(cat: RankCatalog, ranked: Array<[string, number]>, terms: readonly string[]): Array<[string, number]> {
  const distinct = [...new Set(terms)];
  const head = ranked.slice(0, RANKING.rerankDepth).map(([name, score]): [string, number] => {
    const words = wordsOf(cat, cat.byName.get(name)!);
    const covered = distinct.filter((w) => words.has(w) || SYNONYMS.get(w)?.some((x) => words.has(x))).length / distinct.length;
    return [name, score * (1 + RANKING.coverage * covered)];
  });
  head.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return [...head, ...ranked.slice(RANKING.rerankDepth)];
}
