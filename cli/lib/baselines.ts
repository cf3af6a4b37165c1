// Baseline rankers for `catalog eval --baselines`, run in the same process on the same catalog:
// - xcode-keyword: x-code-cli / Claude Code's weighted keywords (a query word equal to a part of
//   the tool name 12, contained in a name part 6, found in the description or schema 2);
// - orama-default: Orama BM25 with default settings over name, description and parameters.

import { create, insertMultiple, search, type AnyOrama } from "@orama/orama";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import { splitIdentifier } from "../../worker/core/search-text.ts";

export type Ranker = (query: string, k: number) => string[];

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

export function xcodeKeyword(tools: readonly CatalogTool[]): Ranker {
  const docs = tools.map((t) => ({
    name: t.name,
    parts: words(splitIdentifier(t.name)),
    text: `${t.description} ${JSON.stringify(t.inputSchema)}`.toLowerCase(),
  }));
  return (query, k) => {
    const q = [...new Set(words(query))];
    const scored: Array<[string, number]> = [];
    for (const d of docs) {
      let score = 0;
      for (const w of q) {
        if (d.parts.includes(w)) score += 12;
        else if (d.parts.some((p) => p.includes(w))) score += 6;
        if (d.text.includes(w)) score += 2;
      }
      if (score > 0) scored.push([d.name, score]);
    }
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return scored.slice(0, k).map(([n]) => n);
  };
}

export function oramaDefault(tools: readonly CatalogTool[]): Ranker {
  const db: AnyOrama = create({ schema: { id: "string", name: "string", description: "string", parameters: "string" } as const });
  const params = (t: CatalogTool) =>
    Object.entries((t.inputSchema.properties ?? {}) as Record<string, { description?: string }>)
      .map(([k, v]) => `${k} ${typeof v?.description === "string" ? v.description : ""}`)
      .join(" ");
  void insertMultiple(
    db,
    tools.map((t) => ({ id: t.name, name: t.originalName, description: t.description, parameters: params(t) })),
    1_000_000,
  );
  return (query, k) => {
    const r = search(db, { term: query, properties: ["name", "description", "parameters"], limit: k }) as { hits: Array<{ id: string }> };
    return r.hits.map((h) => h.id);
  };
}
