// What text of a tool is indexed, and how text becomes tokens: ONE place, used by `catalog build`
// to build the Orama index and by every query (Worker and CLI) so the two can never disagree.
// Orama does not persist tokenizer settings (orama#934): INDEX_CONFIG's id is stored in the
// catalog and a reader with a different id refuses the catalog instead of ranking wrongly.
// Query-side word lists (stop words, synonyms) are in vocabulary.ts, the Chinese glossary in
// glossary.ts: neither changes the index. A tool's search text (written at build time, see
// docs/search-text.md) is indexed in fields of its own and never shown to a model.

import { create, type AnyOrama, type Tokenizer } from "@orama/orama";

/** Bump `id` whenever tokenize(), the fields, their meaning or the saved layout (tool-index.ts) change. */
export const INDEX_CONFIG = {
  id: "toolsearch-words/8",
  /** `queries`: example requests of the tool's search text; `keywords`: its keywords, "when" sentence and the server's searchHint */
  fields: ["name", "server", "description", "params", "queries", "keywords"] as const,
} as const;

/**
 * Query-time ranking (rank.ts): BM25F, the fields' term counts weighted by `boost` and
 * length-normalised by `b` before one saturation (`k1`), then a rerank by name coverage.
 */
export const RANKING: {
  boost: Record<string, number>;
  k1: number;
  b: number;
  queryTf: number;
  rerankDepth: number;
  coverage: number;
  textless: number;
} = {
  boost: { name: 2, server: 1.5, description: 1, params: 0.4, queries: 1, keywords: 1 },
  k1: 1.2,
  b: 0.75,
  /** weight of a word typed c times: 1 + queryTf * ln(c) */
  queryTf: 0.5,
  /** second stage: the BM25 top `rerankDepth` re-scored by name/server coverage of the query */
  rerankDepth: 50,
  coverage: 1,
  /**
   * Field-presence normalisation: the score of a tool WITHOUT search text is multiplied by this.
   * Search text adds matched words, so in a catalog where only some tools have it (or in a union
   * with a client's tools, which never have it) those tools out-score the rest on words alone.
   */
  textless: 1.2,
};

export type IndexField = (typeof INDEX_CONFIG.fields)[number];
export type SearchDocument = { id: string } & Record<IndexField, string>;

/**
 * What a person would type when they need a tool, written at build time (search-text file) or
 * sent by its server (`hint`: `_meta["anthropic/searchHint"]`). Indexed, never shown to a model.
 */
export interface ToolSearchText {
  hint?: string;
  when?: string;
  queries?: string[];
  keywords?: string[];
}

/** The parts of a tool that search looks at (a catalog tool is a superset of this). */
export interface SearchableTool {
  name: string;
  server: string;
  originalName: string;
  title?: string;
  description: string;
  inputSchema: { properties?: Record<string, unknown> } & Record<string, unknown>;
  search?: ToolSearchText;
}

/** Split identifiers: `getHTTPResponse_v2-list.items` -> `get HTTP Response v2 list items`. */
export function splitIdentifier(text: string): string {
  return text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/[_\-.:/]+/g, " ");
}

/** Han and Japanese kana: scripts written without spaces between words (Hangul has spaces). */
export const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u30fc]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/**
 * A run of CJK characters -> overlapping character bigrams (a one-character run stays itself).
 * Chinese has no spaces, so the whole run would otherwise be one "word" that only an identical
 * run could match. Bigrams are deterministic (Intl.Segmenter's dictionary differs between ICU
 * versions, and the index is built by Node but read by workerd) and match most two-character
 * words, the commonest length.
 */
function pushBigrams(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) out.push(run);
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
}

/**
 * Plural to singular, Harman's "S" stemmer: `-ies` -> `-y`, `-es` -> `-e`, `-s` -> ``, except
 * `-us -ss -is` (and `-aies -eies -aes -ees -oes` fall through to the next rule). Only plurals: full stemming (Porter) measured worse,
 * it merges words that name different tools; a plural never does ("list_commits" is what
 * "commit history" wants). "news" is not the plural of "new". Short words and words with
 * digits are kept as they are.
 */
export function foldPlural(w: string): string {
  if (w.length < 4 || w === "news" || /\d/.test(w)) return w;
  // the first rule that applies wins ("shoes": not "-es" -> "-e", so "-s" -> "shoe")
  if (/[^ae]ies$/.test(w)) return `${w.slice(0, -3)}y`;
  if (/[^aeo]es$/.test(w)) return w.slice(0, -1);
  if (/[^usi]s$/.test(w)) return w.slice(0, -1);
  return w;
}

/**
 * Text -> index/query tokens: identifiers split (camelCase words also kept whole), NFKC,
 * lowercase, letters and digits only, plurals folded, CJK runs as bigrams.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const segment of text.split(/[^\p{L}\p{N}]+/u)) {
    if (!segment) continue;
    const parts = splitIdentifier(segment)
      .normalize("NFKC")
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean);
    for (const w of parts) pushWord(w, out);
    // a camelCase word is also its whole: "JavaScript" -> java, script, javascript (as typed)
    if (parts.length > 1 && !HAS_CJK.test(segment)) out.push(foldPlural(parts.join("")));
  }
  return out;
}

function pushWord(w: string, out: string[]): void {
  if (!HAS_CJK.test(w)) {
    out.push(foldPlural(w));
    return;
  }
  // "json文件" -> "json" + bigrams of "文件": split where the script changes
  let last = 0;
  for (const m of w.matchAll(CJK_RUN)) {
    if (m.index > last) out.push(foldPlural(w.slice(last, m.index)));
    pushBigrams(m[0], out);
    last = m.index + m[0].length;
  }
  if (last < w.length) out.push(foldPlural(w.slice(last)));
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
    queries: (tool.search?.queries ?? []).join(" "),
    keywords: [tool.search?.hint, tool.search?.when, ...(tool.search?.keywords ?? [])].filter(Boolean).join(" "),
  };
}

const tokenizer: Tokenizer = {
  language: "english",
  normalizationCache: new Map(),
  tokenize: (raw: string) => (typeof raw === "string" ? tokenize(raw) : []),
};

/** An empty Orama db with the one schema and tokenizer (before insert, or before load()). */
export function createIndex(): AnyOrama {
  const schema = Object.fromEntries(INDEX_CONFIG.fields.map((f) => [f, "string"])) as Record<IndexField, "string">;
  // no sort index: results are ranked by score only (it would be ~17% of the file)
  return create({ schema, sort: { enabled: false }, components: { tokenizer } }) as unknown as AnyOrama;
}
