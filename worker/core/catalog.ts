// The catalog file (format toolsearch.catalog/v2): types, the content hash, file naming and
// verification. A catalog is a pure function of its tools, its servers' metadata and the build
// config; its hash is sha256 over the canonical JSON of everything except the `hash` field.
// v2 added per-server metadata and summaries, and the token pieces of every listing form; later v2
// files also count each tool's TypeScript declaration (optional, so older v2 files still read).

import { canonicalJson, sha256Hex } from "./canonical.ts";
import { ToolsearchError } from "./errors.ts";
import { LISTING_FORMS, LISTING_ID, listingSizes, serverEntries, toolEntries, type ListingForm, type ListingHeaders } from "./listing.ts";
import { EXPOSED_NAME_RE } from "./names.ts";
import { INDEX_CONFIG, type ToolSearchText } from "./search-text.ts";
import { restoreIndex, type SavedIndex } from "./tool-index.ts";
import type { AnyOrama } from "@orama/orama";

export { EXPOSED_NAME_RE };
export const CATALOG_FORMAT = "toolsearch.catalog/v2";
export const SEMVER_RE = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;
export const CATALOG_NAME_RE = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const ENCODINGS = ["o200k_base", "cl100k_base"] as const;
export type Encoding = (typeof ENCODINGS)[number];
export type TransportKind = "stdio" | "http" | "sse" | "recorded";
export type JsonObject = Record<string, unknown>;

export interface CatalogTool {
  /** exposed name, `mcp__<server>__<tool>` made safe for every provider */
  name: string;
  server: string;
  originalName: string;
  title?: string;
  description: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
  /** never deferred: always in the tools list */
  alwaysLoad?: true;
  /** indexed only: never in a listing, a definition, a prompt or a token count (search-text.ts) */
  search?: ToolSearchText;
  /** tokens of the OpenAI-form definition, of its `names` line and of its ` <short>` piece in `grouped` (listing.ts);
   * `declaration`: of its TypeScript declaration, what a code-mode toolSearch shows (declarations.ts
   * toolDeclaration). Optional: a v2 file built before code mode has none, and reads as before. */
  tokens: { definition: number; name: number; short: number; declaration?: number };
}

export interface CatalogServer {
  name: string;
  transport: TransportKind;
  serverInfo: { name: string; version: string } | null;
  /** what the server said of itself: initialize's serverInfo.title/description and instructions (recorded: _meta.server_title/server_description) */
  title?: string;
  description?: string;
  instructions?: string;
  /** one line for the `servers` listing: from what it said, else its most distinctive tool words */
  summary: string;
  tools: number;
  /** tokens of `<label>:` in `grouped`, and of its `servers` line without the tool count */
  tokens: { grouped: number; servers: number };
}

export interface Catalog {
  format: typeof CATALOG_FORMAT;
  name: string;
  version: string;
  hash: string;
  build: { encoding: Encoding; index: string; listing: string };
  servers: CatalogServer[];
  tools: CatalogTool[];
  /** listing token counts: each form's header, and each form's whole section for the tools that are not alwaysLoad */
  listing: { headers: ListingHeaders; sections: Record<ListingForm, number> };
  index: SavedIndex;
}

export type UnhashedCatalog = Omit<Catalog, "hash">;

export async function catalogHash(catalog: UnhashedCatalog | Catalog): Promise<string> {
  const { hash: _ignored, ...rest } = catalog as Catalog;
  return sha256Hex(canonicalJson(rest));
}

/** The file's bytes: the canonical JSON of the whole catalog, newline-terminated. */
export function serializeCatalog(catalog: Catalog): string {
  return `${canonicalJson(catalog)}\n`;
}

export function catalogFileName(c: Pick<Catalog, "name" | "version" | "hash">): string {
  return `${c.name}@${c.version}.${c.hash.slice(0, 12)}.json`;
}

/** `name@version#hash12`, the form shown in the x-catalog header and CLI output. */
export function catalogLabel(c: Pick<Catalog, "name" | "version" | "hash">): string {
  return `${c.name}@${c.version}#${c.hash.slice(0, 12)}`;
}

function invalid(reason: string): never {
  throw new ToolsearchError("catalog_invalid", reason);
}

const isCount = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
const isText = (v: unknown) => v === undefined || typeof v === "string";
const isTexts = (v: unknown) => v === undefined || (Array.isArray(v) && v.every((x) => typeof x === "string"));
const isSearchText = (s: ToolSearchText) =>
  !!s && typeof s === "object" && isText(s.hint) && isText(s.when) && isTexts(s.queries) && isTexts(s.keywords);

/** Structural checks that need no hashing (names, order, counts, build config, listing pieces). */
export function checkCatalogShape(value: unknown): asserts value is Catalog {
  const c = value as Catalog;
  if (!c || typeof c !== "object" || Array.isArray(c)) invalid("not a JSON object");
  if (c.format !== CATALOG_FORMAT) {
    const format: unknown = c.format;
    if (typeof format !== "string") invalid("no format field: not a toolsearch catalog");
    invalid(
      `catalog format "${format.slice(0, 60)}" is not read by this build, which reads "${CATALOG_FORMAT}": rebuild it with catalog build (and a new version)`,
    );
  }
  if (typeof c.name !== "string" || !CATALOG_NAME_RE.test(c.name)) invalid("name is missing or not a valid catalog name");
  if (typeof c.version !== "string" || !SEMVER_RE.test(c.version)) invalid("version is not semver");
  if (typeof c.hash !== "string" || !/^[0-9a-f]{64}$/.test(c.hash)) invalid("hash is not a sha256 hex digest");
  if (!c.build || !ENCODINGS.includes(c.build.encoding)) invalid("build.encoding is missing or unknown");
  if (c.build.index !== INDEX_CONFIG.id) {
    invalid(`index was built with "${c.build.index}", this build reads "${INDEX_CONFIG.id}": rebuild the catalog`);
  }
  if (c.build.listing !== LISTING_ID)
    invalid(`listing counts were made for "${c.build.listing}", this build renders "${LISTING_ID}": rebuild the catalog`);
  if (!Array.isArray(c.servers) || !Array.isArray(c.tools)) invalid("servers or tools is not an array");
  const servers = new Map(c.servers.map((s) => [s.name, s]));
  const perServer = new Map<string, number>();
  let previous = "";
  for (const [i, t] of c.tools.entries()) {
    if (!t || typeof t.name !== "string" || !EXPOSED_NAME_RE.test(t.name)) invalid(`tools[${i}] has an invalid exposed name`);
    if (t.name <= previous) invalid(`tools are not sorted and unique at "${t.name}"`);
    previous = t.name;
    if (!servers.has(t.server)) invalid(`tool "${t.name}" names unknown server "${t.server}"`);
    if (!t.inputSchema || typeof t.inputSchema !== "object" || t.inputSchema.type !== "object") {
      invalid(`tool "${t.name}" has no object inputSchema`);
    }
    if (!t.tokens || !isCount(t.tokens.definition) || !isCount(t.tokens.name) || !isCount(t.tokens.short)) {
      invalid(`tool "${t.name}" has no token counts`);
    }
    if (t.tokens.declaration !== undefined && !isCount(t.tokens.declaration))
      invalid(`tool "${t.name}" has a declaration count that is not a count`);
    if (t.search !== undefined && !isSearchText(t.search)) invalid(`tool "${t.name}" has search text that is not text`);
    perServer.set(t.server, (perServer.get(t.server) ?? 0) + 1);
  }
  for (const s of c.servers) {
    if ((perServer.get(s.name) ?? 0) !== s.tools)
      invalid(`server "${s.name}" claims ${s.tools} tools, catalog has ${perServer.get(s.name) ?? 0}`);
    if (!isText(s.title) || !isText(s.description) || !isText(s.instructions))
      invalid(`server "${s.name}" has a title, description or instructions that is not text`);
    if (typeof s.summary !== "string" || !s.summary.trim() || /[\r\n]/.test(s.summary))
      invalid(`server "${s.name}" has no one-line summary`);
    if (!s.tokens || !isCount(s.tokens.grouped) || !isCount(s.tokens.servers)) invalid(`server "${s.name}" has no listing token counts`);
  }
  const l = c.listing;
  if (!l || !l.headers || !l.sections || LISTING_FORMS.some((f) => !isCount(l.headers[f]) || !isCount(l.sections[f])))
    invalid("listing token counts are missing");
  // the stored totals must be what the stored pieces add up to: the Worker sums pieces for subsets
  const sizes = listingSizes(toolEntries(c.tools.filter((t) => !t.alwaysLoad)), serverEntries(c.servers), l.headers);
  const off = LISTING_FORMS.find((f) => sizes[f] !== l.sections[f]);
  if (off) invalid(`listing.sections.${off} is ${l.sections[off]}, its pieces add up to ${sizes[off]}`);
}

export interface VerifiedCatalog {
  catalog: Catalog;
  index: AnyOrama;
}

const HASH_FIELD = /"hash":"([0-9a-f]{64})",/;

/**
 * Parse and verify catalog bytes: the hash, the shape, and that the index restores and matches
 * the tools. Throws ToolsearchError("catalog_invalid") with the reason.
 *
 * The hash is checked over the bytes: a catalog file is canonical JSON, so its text without the
 * `"hash":"…",` member is exactly the canonical JSON the hash was computed over. That catches any
 * changed byte without re-serializing megabytes (the Worker's cold start). `strict` (the CLI's
 * `verify`) also re-derives the hash from the parsed values and checks the bytes are canonical.
 */
export async function verifyCatalog(input: string | Uint8Array, opts: { strict?: boolean } = {}): Promise<VerifiedCatalog> {
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  const head = HASH_FIELD.exec(new TextDecoder().decode(bytes.subarray(0, 1000)));
  // everything before the hash member is ASCII (keys, format, build config), so chars = bytes
  if (!head || !/^[\x20-\x7e]*$/.test(head.input.slice(0, head.index))) {
    invalid("no hash field where a catalog file has one (not a catalog, or not canonical JSON)");
  }
  const end = bytes[bytes.length - 1] === 0x0a ? bytes.length - 1 : bytes.length;
  const hashed = new Uint8Array(end - head[0].length);
  hashed.set(bytes.subarray(0, head.index));
  hashed.set(bytes.subarray(head.index + head[0].length, end), head.index);
  const bytesHash = await sha256Hex(hashed);
  const text = typeof input === "string" ? input : new TextDecoder().decode(bytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    invalid(`not valid JSON (${(e as Error).message})`);
  }
  checkCatalogShape(parsed);
  if (bytesHash !== parsed.hash)
    invalid(`hash mismatch: file says ${parsed.hash.slice(0, 12)}, content hashes to ${bytesHash.slice(0, 12)}`);
  if (opts.strict) {
    const actual = await catalogHash(parsed);
    if (actual !== parsed.hash) invalid(`hash mismatch: file says ${parsed.hash.slice(0, 12)}, values hash to ${actual.slice(0, 12)}`);
    if (serializeCatalog(parsed) !== text) invalid("file is not in canonical form (edited by hand?)");
  }
  let index: AnyOrama;
  try {
    index = restoreIndex(parsed.index, parsed.tools);
  } catch (e) {
    invalid(`index does not restore: ${(e as Error).message}`);
  }
  return { catalog: parsed, index };
}
