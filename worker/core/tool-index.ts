// Build and restore the catalog's Orama index. The saved form is Orama's own save() RawData,
// made compact for the file and for the Worker's cold start; restore() undoes each change:
// - the document store is left empty, saved and restored: ranking (search.ts) reads only the
//   index, and each indexed document is a pure function of its tool anyway (toolSearchText);
// - the internal-id table is dropped: tools are inserted in catalog order, so id i+1 is tools[i];
// - `frequencies` hold integer term counts instead of Orama's count/fieldLength floats, in the
//   file AND in the restored db: the only reader is our ranker (search.ts), which wants counts.
//   Converting back would allocate every per-document map again at cold start. So Orama's own
//   search() must not be run on a restored index (its BM25 would read counts as tf).

import { insertMultiple, load, save, count, type AnyOrama, type RawData } from "@orama/orama";
import { createIndex, INDEX_CONFIG, tokenize, toolSearchText, type SearchableTool } from "./search-text.ts";

type Frequencies = Record<string, Record<string, Record<string, number> | undefined>>;
interface OramaIndex {
  frequencies: Frequencies;
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

/** Orama's tf (count / field length) back to the integer count it was computed from. */
function termCounts(index: OramaIndex): Frequencies {
  const out: Frequencies = {};
  for (const field of INDEX_CONFIG.fields) {
    const perDoc = index.frequencies[field] ?? {};
    const lengths = index.fieldLengths[field] ?? {};
    const next: Record<string, Record<string, number>> = {};
    for (const [id, terms] of Object.entries(perDoc)) {
      if (!terms) continue;
      const len = lengths[id] ?? 0;
      const t: Record<string, number> = {};
      for (const [term, tf] of Object.entries(terms)) t[term] = Math.round(tf * len);
      next[id] = t;
    }
    out[field] = next;
  }
  return out;
}

export function buildIndex(tools: readonly SearchableTool[]): SavedIndex {
  const db = createIndex();
  // insertMultiple is synchronous with no async hooks or components (none are configured)
  void insertMultiple(db, tools.map(toolSearchText), 1_000_000);
  const raw = save(db) as unknown as { index: OramaIndex; sorting: unknown; pinning: unknown; language: string };
  const index = { ...raw.index, frequencies: termCounts(raw.index) };
  return { index, sorting: raw.sorting, pinning: raw.pinning, language: raw.language, documents: tools.length };
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
  const raw = {
    internalDocumentIDStore: { internalIdToId: tools.map((t) => t.name) },
    index: s.index,
    // ranking reads the index alone (search.ts); stored documents would only cost memory
    docs: { docs: {}, count: tools.length },
    sorting: s.sorting,
    pinning: s.pinning,
    language: s.language,
  };
  const db = createIndex();
  load(db, raw as unknown as RawData);
  if (count(db) !== tools.length) throw new Error("index restore lost documents");
  return db;
}
