// `catalog build` as a library: snapshot every configured server, validate and name the tools,
// attach their search text, summarize each server, count tokens (definitions and every listing
// piece), build the Orama index and hash the result. Pure in its output: the catalog depends
// only on the servers' tools, the search-text file and the config, never on timing, host or
// answer order.

import {
  CATALOG_FORMAT,
  catalogFileName,
  catalogHash,
  serializeCatalog,
  type Catalog,
  type CatalogServer,
  type CatalogTool,
  type JsonObject,
} from "../../worker/core/catalog.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { assignExposedNames, cmp } from "../../worker/core/names.ts";
import { LISTING_ID } from "../../worker/core/listing.ts";
import { INDEX_CONFIG } from "../../worker/core/search-text.ts";
import { buildIndex } from "../../worker/core/tool-index.ts";
import type { BuildConfig, ServerSpec } from "./config.ts";
import { matchesAny } from "./glob.ts";
import { readRecorded } from "./recorded.ts";
import { mapBounded, snapshotLive, type ServerSnapshot } from "./snapshot.ts";
import { countListing } from "./listing-counts.ts";
import { freshness, nameSome, readSearchText, toolKey } from "./search-text-file.ts";
import { serverSummaries } from "./summaries.ts";
import { tokenCounter, toolTokens } from "./tokens.ts";

export interface ServerReport {
  source: string;
  ok: boolean;
  tools: number;
  servers: number;
  ms: number;
  error?: string;
}

export interface BuildOptions {
  concurrency?: number;
  onServer?: (report: ServerReport) => void;
}

export interface BuildResult {
  catalog: Catalog;
  text: string;
  fileName: string;
  warnings: string[];
  reports: ServerReport[];
}

export type Draft = Omit<CatalogTool, "name" | "tokens">;

async function snapshotOne(spec: ServerSpec): Promise<ServerSnapshot[]> {
  return spec.kind === "recorded" ? readRecorded(spec.name, spec.path) : [await snapshotLive(spec)];
}

function isObject(v: unknown): v is JsonObject {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

function toDraft(raw: unknown, snap: ServerSnapshot, index: number): Draft {
  const where = `server "${snap.name}"`;
  if (!isObject(raw) || typeof raw.name !== "string" || !raw.name.trim()) {
    throw new ToolsearchError("invalid_tool", `${where}: tool #${index + 1} has no name`);
  }
  const name = raw.name;
  if (!isObject(raw.inputSchema) || raw.inputSchema.type !== "object") {
    throw new ToolsearchError("invalid_tool", `${where}: tool "${name}" has no valid inputSchema (need an object with "type": "object")`);
  }
  if (raw.description !== undefined && raw.description !== null && typeof raw.description !== "string") {
    throw new ToolsearchError("invalid_tool", `${where}: tool "${name}" has a non-string description`);
  }
  if (raw.outputSchema !== undefined && !isObject(raw.outputSchema)) {
    throw new ToolsearchError("invalid_tool", `${where}: tool "${name}" has an outputSchema that is not an object`);
  }
  const annotations = isObject(raw.annotations) ? raw.annotations : undefined;
  const title = typeof raw.title === "string" ? raw.title : typeof annotations?.title === "string" ? annotations.title : undefined;
  // Claude Code's convention: a server's own words for search, indexed beside the search text
  const hint = isObject(raw._meta) ? raw._meta["anthropic/searchHint"] : undefined;
  return {
    server: snap.name,
    originalName: name,
    title,
    description: (raw.description as string | undefined) ?? "",
    inputSchema: raw.inputSchema,
    outputSchema: raw.outputSchema as JsonObject | undefined,
    annotations: annotations && Object.keys(annotations).length ? annotations : undefined,
    search: typeof hint === "string" && hint.trim() ? { hint: hint.trim() } : undefined,
  };
}

function selectTools(snap: ServerSnapshot, spec: ServerSpec): Draft[] {
  const drafts = snap.tools.map((raw, i) => toDraft(raw, snap, i));
  const seen = new Set<string>();
  for (const d of drafts) {
    if (seen.has(d.originalName))
      throw new ToolsearchError("invalid_tool", `server "${snap.name}": tool "${d.originalName}" is listed twice`);
    seen.add(d.originalName);
  }
  return drafts
    .filter((d) => !spec.include || matchesAny(d.originalName, spec.include))
    .filter((d) => !matchesAny(d.originalName, spec.exclude))
    .map((d) => {
      const always = spec.alwaysLoad === true || (Array.isArray(spec.alwaysLoad) && matchesAny(d.originalName, spec.alwaysLoad));
      return always ? { ...d, alwaysLoad: true as const } : d;
    });
}

export interface Collected {
  servers: Array<Omit<CatalogServer, "summary" | "tokens">>;
  drafts: Draft[];
  reports: ServerReport[];
}

/** Snapshot every configured server and validate its tools (build, and enrich's list of tools). */
export async function collectTools(config: BuildConfig, opts: BuildOptions = {}): Promise<Collected> {
  const reports: ServerReport[] = [];
  const outcomes = await mapBounded(config.servers, opts.concurrency ?? 8, async (spec) => {
    const started = Date.now();
    try {
      const snaps = await snapshotOne(spec);
      const report = {
        source: spec.name,
        ok: true,
        tools: snaps.reduce((n, s) => n + s.tools.length, 0),
        servers: snaps.length,
        ms: Date.now() - started,
      };
      reports.push(report);
      opts.onServer?.(report);
      return { spec, snaps };
    } catch (e) {
      const message = (e as Error).message.replace(/^server "[^"]*": /, "");
      const report = { source: spec.name, ok: false, tools: 0, servers: 0, ms: Date.now() - started, error: message };
      reports.push(report);
      opts.onServer?.(report);
      return { spec, error: e as Error };
    }
  });
  const failed = outcomes.filter((o) => "error" in o);
  if (failed.length) {
    const reasons = failed.map((o) => [o.spec.name, reports.find((r) => r.source === o.spec.name)!.error] as const);
    const text =
      reasons.length === 1
        ? `server "${reasons[0]![0]}" failed: ${reasons[0]![1]}`
        : `${reasons.length} servers failed: ${reasons.map(([n, r]) => `"${n}" (${r})`).join("; ")}`;
    throw new ToolsearchError("server_failed", `${text}; no catalog written`);
  }

  const owners = new Map<string, string>();
  const servers: Array<Omit<CatalogServer, "summary" | "tokens">> = [];
  const drafts: Draft[] = [];
  for (const { spec, snaps } of outcomes as Array<{ spec: ServerSpec; snaps: ServerSnapshot[] }>) {
    for (const snap of snaps) {
      const owner = owners.get(snap.name);
      if (owner) throw new ToolsearchError("invalid_config", `server name "${snap.name}" comes from both "${owner}" and "${spec.name}"`);
      owners.set(snap.name, spec.name);
      const tools = selectTools(snap, spec);
      drafts.push(...tools);
      servers.push({ name: snap.name, transport: snap.transport, serverInfo: snap.serverInfo, ...snap.meta, tools: tools.length });
    }
  }
  servers.sort((a, b) => cmp(a.name, b.name));
  if (drafts.length === 0)
    throw new ToolsearchError("invalid_config", "no tools: every server listed none (or include/exclude removed them all)");
  return { servers, drafts, reports };
}

/** Each tool's search text from the file (fresh or hand-written entries), after its server's hint; warnings for the rest. */
async function withSearchText(drafts: Draft[], path: string | undefined, warnings: string[]): Promise<Draft[]> {
  if (!path) return drafts;
  const { usable, stale, unknown } = freshness(drafts, await readSearchText(path));
  if (stale.length)
    warnings.push(
      `search text: ${stale.length} stale ${stale.length === 1 ? "entry" : "entries"} (the tool changed since it was written; not indexed, run catalog enrich): ${nameSome(stale)}`,
    );
  if (unknown.length)
    warnings.push(`search text: ${unknown.length} ${unknown.length === 1 ? "key names" : "keys name"} no tool: ${nameSome(unknown)}`);
  return drafts.map((d) => {
    const text = usable.get(toolKey(d));
    return text ? { ...d, search: { ...d.search, ...text } } : d;
  });
}

export async function buildCatalog(config: BuildConfig, opts: BuildOptions = {}): Promise<BuildResult> {
  const countTokens = tokenCounter(config.encoding); // starts loading while servers answer
  const collected = await collectTools(config, opts);
  const { servers, reports } = collected;
  const warnings: string[] = [];
  const drafts = await withSearchText(collected.drafts, config.searchText, warnings);
  const assigned = assignExposedNames(drafts);
  const named = assigned.named;
  warnings.push(...assigned.warnings);
  const summaries = serverSummaries(servers, drafts);
  const count = await countTokens;
  const counted = countListing(
    named.map((t) => ({
      ...t,
      tokens: toolTokens(t, count),
    })),
    servers.map((s) => ({ ...s, summary: summaries.get(s.name)! })),
    count,
  );
  warnings.push(...counted.warnings);
  const tools: CatalogTool[] = counted.tools;
  const unhashed = {
    format: CATALOG_FORMAT,
    name: config.name,
    version: config.version,
    build: { encoding: config.encoding, index: INDEX_CONFIG.id, listing: LISTING_ID },
    servers: counted.servers,
    tools,
    listing: counted.listing,
    index: buildIndex(tools),
  };
  // a JSON round trip drops undefined members, so the in-memory catalog equals the file's
  const catalog = JSON.parse(JSON.stringify({ ...unhashed, hash: await catalogHash(unhashed as Catalog) })) as Catalog;
  return { catalog, text: serializeCatalog(catalog), fileName: catalogFileName(catalog), warnings, reports };
}
