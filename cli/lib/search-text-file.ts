// The search-text file (format toolsearch.search-text/1, docs/search-text.md): what a person would
// type when they need each tool, keyed "<server>/<original tool name>". Read by `catalog build`
// (which indexes it) and `catalog enrich` (which writes it); this module parses, checks
// freshness against the tools (toolHash) and writes it sorted and atomically.

import { createHash } from "node:crypto";
import { readFile, rename, writeFile } from "node:fs/promises";
import { z } from "zod";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";
import type { ToolSearchText } from "../../worker/core/search-text.ts";

export const SEARCH_TEXT_FORMAT = "toolsearch.search-text/1";

const text = z.string().trim().min(1);
export const searchTextEntry = z
  .object({
    when: text.optional(),
    queries: z.array(text).optional(),
    keywords: z.array(text).optional(),
    /** toolHash() of the tool the text was written for; absent: hand-written, always used */
    toolHash: z
      .string()
      .regex(/^[0-9a-f]{16}$/, "must be 16 lowercase hex digits (toolHash)")
      .optional(),
    /** who wrote it: `<model> (catalog enrich, prompt <n>)`, or a person */
    by: z.string().optional(),
  })
  .strict();
export type SearchTextEntry = z.infer<typeof searchTextEntry>;
export type SearchTextEntries = Record<string, SearchTextEntry>;

/** The tool fields the text describes (and the enrichment prompt shows): a change makes it stale. */
export interface DescribedTool {
  server: string;
  originalName: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export const toolKey = (t: Pick<DescribedTool, "server" | "originalName">) => `${t.server}/${t.originalName}`;

/** 16 hex digits of sha256 over the canonical JSON of the tool's name, title, description and input schema. */
export function toolHash(t: DescribedTool): string {
  const described = { name: t.originalName, title: t.title, description: t.description, inputSchema: t.inputSchema };
  return createHash("sha256").update(canonicalJson(described)).digest("hex").slice(0, 16);
}

function bad(path: string, message: string): never {
  throw new ToolsearchError("invalid_config", `search text ${path}: ${message}`);
}

/** Read and check a search-text file; a missing file is `{}` when `missingOk` (enrich starts one). */
export async function readSearchText(path: string, missingOk = false): Promise<SearchTextEntries> {
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (e) {
    if (missingOk && (e as NodeJS.ErrnoException).code === "ENOENT") return {};
    bad(path, `cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    bad(path, `not valid JSON (${(e as Error).message})`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) bad(path, "must be a JSON object of entries");
  const { $format, ...entries } = parsed as Record<string, unknown>;
  if ($format !== undefined && $format !== SEARCH_TEXT_FORMAT) bad(path, `format "${String($format)}" is not ${SEARCH_TEXT_FORMAT}`);
  const out: SearchTextEntries = {};
  for (const [key, value] of Object.entries(entries)) {
    if (!/^[^/]+\/.+$/.test(key)) bad(path, `key "${key}" is not "<server>/<tool name>"`);
    const entry = searchTextEntry.safeParse(value);
    if (!entry.success) {
      const issue = entry.error.issues[0]!;
      bad(path, `"${key}"${issue.path.length ? `.${issue.path.join(".")}` : ""}: ${issue.message}`);
    }
    out[key] = entry.data;
  }
  return out;
}

/** The file's bytes: `$format` and the entries, keys sorted, one-space indent (diff-friendly), newline-terminated. */
export function serializeSearchText(entries: SearchTextEntries): string {
  const sorted = JSON.parse(canonicalJson({ $format: SEARCH_TEXT_FORMAT, ...entries })) as unknown;
  return `${JSON.stringify(sorted, null, 1)}\n`;
}

/** Write atomically: a temporary file beside it, renamed over it (a reader never sees half a file). */
export async function writeSearchText(path: string, entries: SearchTextEntries): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, serializeSearchText(entries));
  await rename(tmp, path);
}

export interface Freshness {
  /** tool key -> the text to index (fresh or hand-written entries) */
  usable: Map<string, ToolSearchText>;
  /** tools whose entry was written for a different definition */
  stale: string[];
  /** tools with no entry */
  missing: string[];
  /** keys that name no tool */
  unknown: string[];
}

/** Which tools have usable search text, which have stale or none, and which keys name no tool. */
export function freshness(tools: readonly DescribedTool[], entries: SearchTextEntries): Freshness {
  const out: Freshness = { usable: new Map(), stale: [], missing: [], unknown: [] };
  const keys = new Set<string>();
  for (const t of tools) {
    const key = toolKey(t);
    keys.add(key);
    const e = entries[key];
    if (!e) out.missing.push(key);
    else if (e.toolHash !== undefined && e.toolHash !== toolHash(t)) out.stale.push(key);
    else out.usable.set(key, { when: e.when, queries: e.queries, keywords: e.keywords });
  }
  out.unknown = Object.keys(entries).filter((k) => !keys.has(k));
  return out;
}

/** One line naming at most `max` keys: `a, b, c and 4 more`. */
export function nameSome(keys: readonly string[], max = 10): string {
  const shown = keys.slice(0, max).join(", ");
  return keys.length > max ? `${shown} and ${keys.length - max} more` : shown;
}
