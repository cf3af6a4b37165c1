// Build and restore the catalog's Orama index. The saved form is Orama's own RawData with the
// document store left empty: every indexed document is a pure function of its tool
// (toolSearchText), so restore() refills it from the catalog's tools instead of storing each
// text twice. Tools are inserted in catalog order, so internal id i+1 is tools[i].

import { insertMultiple, load, save, count, type AnyOrama, type RawData } from "@orama/orama";
import { createIndex, toolSearchText, type SearchableTool } from "./search-text.ts";

export type SavedIndex = RawData & { docs: { docs: Record<string, never>; count: number } };

export function buildIndex(tools: readonly SearchableTool[]): SavedIndex {
  const db = createIndex();
  // insertMultiple is synchronous with no async hooks or components (none are configured)
  void insertMultiple(db, tools.map(toolSearchText), 1_000_000);
  const raw = save(db) as SavedIndex;
  return { ...raw, docs: { docs: {}, count: (raw.docs as { count: number }).count } };
}

/** Restore a saved index; throws a plain Error with the reason when it does not fit the tools. */
export function restoreIndex(saved: unknown, tools: readonly SearchableTool[]): AnyOrama {
  const raw = saved as SavedIndex;
  const ids = (raw as { internalDocumentIDStore?: { internalIdToId?: unknown } })
    ?.internalDocumentIDStore?.internalIdToId;
  if (!Array.isArray(ids) || !raw.index || !raw.docs) {
    throw new Error("index is not an Orama save() object");
  }
  if (ids.length !== tools.length || raw.docs.count !== tools.length) {
    throw new Error(`index holds ${ids.length} documents for ${tools.length} tools`);
  }
  for (let i = 0; i < tools.length; i++) {
    if (ids[i] !== tools[i]!.name) {
      throw new Error(`index document ${i + 1} is "${String(ids[i])}", expected "${tools[i]!.name}"`);
    }
  }
  const docs: Record<number, unknown> = {};
  tools.forEach((tool, i) => (docs[i + 1] = toolSearchText(tool)));
  const db = createIndex();
  load(db, { ...raw, docs: { docs, count: tools.length } } as RawData);
  if (count(db) !== tools.length) throw new Error("index restore lost documents");
  return db;
}
