// A query that is exactly a tool's name, exposed (`mcp__github__create_issue`) or original
// (`create_issue`), in any case, finds that tool first, deferred or not: people and models paste
// names they saw elsewhere, and a keyword ranking (or the `mcp__<server>` browse form a pasted
// exposed name resembles) must not bury them. Pure; a lookup table per catalog, built once.

import type { CatalogTool } from "./catalog.ts";

const tables = new WeakMap<readonly CatalogTool[], Map<string, string[]>>();

/** lowercased exposed and original name -> exposed names (an original name can be on several servers) */
function table(tools: readonly CatalogTool[]): Map<string, string[]> {
  let byName = tables.get(tools);
  if (byName) return byName;
  byName = new Map();
  for (const t of tools) {
    for (const key of new Set([t.name.toLowerCase(), t.originalName.toLowerCase()])) {
      const names = byName.get(key);
      if (names) names.push(t.name);
      else byName.set(key, [t.name]);
    }
  }
  tables.set(tools, byName);
  return byName;
}

/** The tools (exposed names, catalog order) whose name the whole query is, among those `allowed`. */
export function exactNameHits(tools: readonly CatalogTool[], query: string, allowed: (name: string) => boolean): string[] {
  const key = query.trim().toLowerCase();
  if (!key || key.length > 200) return [];
  return (table(tools).get(key) ?? []).filter(allowed);
}

/**
 * `ranked` with the exact hits first, each scored above the best keyword score (so a merge of
 * catalogs by score keeps them first too), the rest in their order.
 */
export function exactFirst(ranked: Array<[string, number]>, hits: readonly string[]): Array<[string, number]> {
  if (!hits.length) return ranked;
  const top = ranked.length ? ranked[0]![1] : 0;
  const first = hits.map((name): [string, number] => [name, top + 1]);
  const set = new Set(hits);
  return [...first, ...ranked.filter(([name]) => !set.has(name))];
}
