// Build and restore the catalog's Orama index. The saved form is Orama's own save() RawData,
// made compact for the file and for the Worker's cold start; restore() undoes each change:
// - the document store is left empty, saved and restored: ranking (search.ts) reads only the
//   index, and each indexed document is a pure function of its tool anyway (toolSearchText);
// - the internal-id table is dropped: tools are inserted in catalog order, so id i+1 is tools[i];
// - the per-field radix trees (Orama's own prefix search, half the index) are dropped: the ranker
//   reads only postings and field lengths; restore gives Orama a fresh db's empty trees;
// - `frequencies` hold per-word postings of integer counts (field -> word -> one short string,
//   encodePosting) instead of Orama's per-document count/fieldLength floats, in the file AND in
//   the restored db: the only reader is our ranker (rank.ts), which decodes a word's documents
//   and counts on its first use. A string per word is one allocation for JSON.parse at cold
//   start where an array of numbers was one per number (search text doubled their count).
//   So Orama's own search() must not be run on a restored index (it expects per-document maps).

import { insertMultiple, load, save, count, type AnyOrama, type RawData } from "@orama/orama";
import { createIndex, INDEX_CONFIG, tokenize, toolSearchText, type SearchableTool, type SearchDocument } from "./search-text.ts";

type Frequencies = Record<string, Record<string, Record<string, number> | undefined>>;
/** field -> word -> encodePosting([id, count, id, count, ...]) */
export type Postings = Record<string, Record<string, string>>;

/**
 * A posting ([id, count, ...], ids ascending) as text: per document the id's distance from the
 * previous one in base 36, then `:count` in base 36 unless the count is 1, comma-separated.
 * `[3, 1, 40, 2]` -> `"3,11:2"`.
 */
export function encodePosting(pairs: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const gap = (pairs[i]! - (i ? pairs[i - 2]! : 0)).toString(36);
    parts.push(pairs[i + 1] === 1 ? gap : `${gap}:${pairs[i + 1]!.toString(36)}`);
  }
  return parts.join(",");
}

/** encodePosting undone: `"3,11:2"` -> `[3, 1, 40, 2]`. */
export function decodePosting(text: string): number[] {
  const out: number[] = [];
  let id = 0;
  let n = 0;
  let counting = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c === 44) {
      // ","
      if (counting) out.push(id, n);
      else out.push((id += n), 1);
      n = 0;
      counting = false;
    } else if (c === 58) {
      // ":"
      id += n;
      n = 0;
      counting = true;
    } else n = n * 36 + (c <= 57 ? c - 48 : c - 87);
  }
  return out;
}
interface OramaIndex {
  /** Orama's per-document maps in save() output; Postings in the file and the restored db */
  frequencies: Frequencies | Postings;
  fieldLengths: Record<string, Record<string, number | undefined>>;
  [key: string]: unknown;
}
export interface SavedIndex {
  index: OramaIndex;
  sorting: unknown;
  pinning: unknown;
  language: string;
  documents: number;
}

/**
 * Orama's per-document tf maps (count / field length) turned around into per-word postings of
 * integer counts: field -> word -> [id, count, id, count, ...], ids ascending. The ranker reads
 * a word's documents and counts in one array; per-document maps cost a lookup in a differently
 * shaped object for every document of a common word (milliseconds on a cold word at 3,000
 * tools), and thousands of small objects at parse time.
 */
function postingsByWord(index: OramaIndex): Postings {
  const out: Postings = {};
  for (const field of INDEX_CONFIG.fields) {
    const perDoc = (index.frequencies as Frequencies)[field] ?? {};
    const lengths = index.fieldLengths[field] ?? {};
    const byWord = new Map<string, number[]>();
    const ids = Object.keys(perDoc)
      .map(Number)
      .sort((a, b) => a - b);
    for (const id of ids) {
      const terms = perDoc[id];
      if (!terms) continue;
      const len = lengths[id] ?? 0;
      for (const [term, tf] of Object.entries(terms)) {
        let list = byWord.get(term);
        if (!list) byWord.set(term, (list = []));
        list.push(id, Math.round(tf * len));
      }
    }
    out[field] = Object.fromEntries([...byWord].map(([word, pairs]) => [word, encodePosting(pairs)]));
  }
  return out;
}

export function buildIndex(
  tools: readonly SearchableTool[],
  documents: readonly SearchDocument[] = tools.map((t) => toolSearchText(t)),
): SavedIndex {
  const db = createIndex();
  // insertMultiple is synchronous with no async hooks or components (none are configured)
  void insertMultiple(db, [...documents], 1_000_000);
  const raw = save(db) as unknown as { index: OramaIndex; sorting: unknown; pinning: unknown; language: string };
  const { indexes: _trees, ...kept } = raw.index;
  const index = { ...kept, frequencies: postingsByWord(raw.index) };
  return { index, sorting: raw.sorting, pinning: raw.pinning, language: raw.language, documents: tools.length };
}

/**
 * An index of tools built straight into the layout the ranker reads (per-word postings, field
 * lengths, average field lengths), without Orama: for tools that arrive with a request
 * (client-tools.ts), where Orama's insert (radix trees, per-document maps, a quadratic count per
 * field) was nearly all of the cost. Ranks exactly as restoreIndex(buildIndex(tools)) does
 * (test/node/client-tools.test.ts compares both); Orama's own search() cannot run on it.
 */
export function rankingIndex(tools: readonly SearchableTool[]): AnyOrama {
  const frequencies: Postings = {};
  const postings: Record<string, Record<string, number[]>> = {};
  const fieldLengths: Record<string, Record<number, number>> = {};
  const avgFieldLength: Record<string, number> = {};
  for (const field of INDEX_CONFIG.fields) {
    // no prototype: a word like "constructor" is a posting like any other
    postings[field] = Object.create(null) as Record<string, number[]>;
    fieldLengths[field] = {};
    avgFieldLength[field] = 0;
  }
  tools.forEach((tool, i) => {
    const id = i + 1;
    const doc = toolSearchText(tool);
    for (const field of INDEX_CONFIG.fields) {
      const tokens = tokenize(doc[field]);
      // Orama's running average, step for step, so both builds give the same floats
      avgFieldLength[field] = (avgFieldLength[field]! * (id - 1) + tokens.length) / id;
      fieldLengths[field]![id] = tokens.length;
      const counts = new Map<string, number>();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      const words = postings[field]!;
      for (const [t, n] of counts) (words[t] ??= []).push(id, n);
    }
  });
  for (const field of INDEX_CONFIG.fields)
    frequencies[field] = Object.fromEntries(Object.entries(postings[field]!).map(([t, pairs]) => [t, encodePosting(pairs)]));
  return { data: { index: { frequencies, fieldLengths, avgFieldLength } } } as unknown as AnyOrama;
}

/** Restore a saved index; throws a plain Error with the reason when it does not fit the tools. */
export function restoreIndex(saved: unknown, tools: readonly SearchableTool[]): AnyOrama {
  const s = saved as SavedIndex;
  if (!s || typeof s !== "object" || !s.index || typeof s.index !== "object" || !s.index.frequencies || !s.index.fieldLengths) {
    throw new Error("index is not a saved toolsearch/Orama index");
  }
  if (s.documents !== tools.length) throw new Error(`index holds ${s.documents} documents for ${tools.length} tools`);
  // ids are positional: spot-check that sampled documents have the lengths their tools give
  const lengths = s.index.fieldLengths.name ?? {};
  for (let i = 0; i < tools.length; i += Math.max(1, Math.floor(tools.length / 64))) {
    const expected = tokenize(toolSearchText(tools[i]!).name).length;
    if (lengths[i + 1] !== expected) throw new Error(`index document ${i + 1} does not match tool "${tools[i]!.name}"`);
  }
  const db = createIndex();
  const empty = (save(db) as unknown as { index: OramaIndex }).index.indexes;
  const raw = {
    internalDocumentIDStore: { internalIdToId: tools.map((t) => t.name) },
    index: { ...s.index, indexes: empty },
    // ranking reads the index alone (search.ts); stored documents would only cost memory
    docs: { docs: {}, count: tools.length },
    sorting: s.sorting,
    pinning: s.pinning,
    language: s.language,
  };
  load(db, raw as unknown as RawData);
  if (count(db) !== tools.length) throw new Error("index restore lost documents");
  return db;
}
