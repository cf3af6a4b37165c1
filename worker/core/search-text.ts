// What text of a tool is indexed, and how text becomes tokens: ONE place, used by `catalog build`
// to build the Orama index and by every query (Worker and CLI) so the two can never disagree.
// Orama does not persist tokenizer settings (orama#934): INDEX_CONFIG's id is stored in the
// catalog and a reader with a different id refuses the catalog instead of ranking wrongly.

import { create, type AnyOrama, type Tokenizer } from "@orama/orama";

/**
 * Query words that carry no meaning for tool choice. Dropped from queries (when other words
 * remain), not from the index: they match most tools, so scoring them costs the most time
 * (a posting list per field) for almost no BM25 weight.
 */
export const STOP_WORDS = new Set(
  "a an and are as at be by for from has have i if in into is it its me my of on or our please so that the their them then there these this those to was we were what when where which while will with you your".split(" "),
);

/**
 * Abbreviations and synonyms of this domain, applied to queries only (the index keeps the tools'
 * own words): each query word also searches for these, at EXPANSION_WEIGHT of a typed word.
 */
const SYNONYM_GROUPS = [
  "repo repository",
  "pr pull request",
  "db database",
  "dir directory folder",
  "msg message",
  "k8s kubernetes",
  "doc docs document documentation",
  "img image picture photo",
  "config configuration settings",
  "env environment",
  "auth authentication login",
  "info information details",
  "stats statistics",
  "delete remove",
  "js javascript",
  "ts typescript",
  "url link",
  "screenshot screen capture",
];
export const EXPANSION_WEIGHT = 0.5;
export const SYNONYMS: ReadonlyMap<string, string[]> = (() => {
  const map = new Map<string, string[]>();
  for (const group of SYNONYM_GROUPS) {
    const words = group.split(" ");
    // multi-word expansions ("pr" -> "pull request") apply one way, from the abbreviation
    const [head, ...rest] = words;
    if (head === "pr") {
      map.set(head, rest);
      continue;
    }
    for (const w of words) map.set(w, words.filter((x) => x !== w));
  }
  return map;
})();

/** Bump `id` whenever tokenize(), the fields or their meaning change. */
export const INDEX_CONFIG = {
  id: "toolsearch-words/2",
  fields: ["name", "server", "description", "params"] as const,
} as const;

/** Query-time ranking: BM25 per field, weighted (name words count most). */
export const RANKING: { boost: Record<string, number>; k1: number; b: number; rerankDepth: number; coverage: number } = {
  boost: { name: 3, server: 1.5, description: 1, params: 0.4 },
  k1: 1.2,
  b: 0.75,
  /** second stage: the BM25 top `rerankDepth` re-scored by name/server coverage of the query */
  rerankDepth: 50,
  coverage: 1,
};

export type IndexField = (typeof INDEX_CONFIG.fields)[number];
export type SearchDocument = { id: string } & Record<IndexField, string>;

/** The parts of a tool that search looks at (a catalog tool is a superset of this). */
export interface SearchableTool {
  name: string;
  server: string;
  originalName: string;
  title?: string;
  description: string;
  inputSchema: { properties?: Record<string, unknown> } & Record<string, unknown>;
}

/** Split identifiers: `getHTTPResponse_v2-list.items` -> `get HTTP Response v2 list items`. */
export function splitIdentifier(text: string): string {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/[_\-.:/]+/g, " ");
}

/** Text -> index/query tokens: identifiers split, NFKC, lowercase, letters and digits only. */
export function tokenize(text: string): string[] {
  const words = splitIdentifier(text).normalize("NFKC").toLowerCase().split(/[^\p{L}\p{N}]+/u);
  return words.filter((w) => w.length > 0);
}

function propertyText(schema: SearchableTool["inputSchema"]): string {
  const props = schema?.properties;
  if (!props || typeof props !== "object") return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(props)) {
    parts.push(key);
    const description = (value as { description?: unknown })?.description;
    if (typeof description === "string") parts.push(description);
  }
  return parts.join(" ");
}

/** The indexed document of one tool (Codex's default_tool_search_text, split into fields). */
export function toolSearchText(tool: SearchableTool): SearchDocument {
  return {
    id: tool.name,
    name: `${tool.originalName} ${tool.title ?? ""}`.trim(),
    server: tool.server,
    description: tool.description,
    params: propertyText(tool.inputSchema),
  };
}

const tokenizer: Tokenizer = {
  language: "english",
  normalizationCache: new Map(),
  tokenize: (raw: string) => (typeof raw === "string" ? tokenize(raw) : []),
};

/** An empty Orama db with the one schema and tokenizer (before insert, or before load()). */
export function createIndex(): AnyOrama {
  const schema = Object.fromEntries(INDEX_CONFIG.fields.map((f) => [f, "string"])) as Record<
    IndexField,
    "string"
  >;
  // no sort index: results are ranked by score only (it would be ~17% of the file)
  return create({ schema, sort: { enabled: false }, components: { tokenizer } }) as unknown as AnyOrama;
}
