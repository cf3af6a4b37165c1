// What a catalog costs, per server and per tool, from the token counts the CLI stored: the
// figures GET /v1/catalog answers and the page (and the CLI's --html files) draw. Sums of per-tool
// counts only: the Worker never loads a tokenizer.

import type { CatalogServer, CatalogTool } from "./catalog.ts";
import { numberTokens } from "./listing.ts";

export interface ServerTokens {
  /** every tool of the server injected: the sum of their definitions */
  full: number;
  /** the server's part of each deferred listing form: `names` (a line per tool), `grouped` (one
   * line of short names), `servers` (one line: count and summary); its deferrable tools only */
  names: number;
  grouped: number;
  servers: number;
  /** always-loaded tools of the server: their definitions, in every prompt */
  core: number;
}

export interface ServerSummary {
  name: string;
  transport: CatalogServer["transport"];
  tools: number;
  serverInfo: CatalogServer["serverInfo"];
  title?: string;
  description?: string;
  summary: string;
  tokens: ServerTokens;
}

/** A tool as the catalog view's table lists it (no schemas: their size is `tokens.definition`). */
export interface ToolRow {
  name: string;
  server: string;
  originalName: string;
  title?: string;
  description: string;
  tokens: CatalogTool["tokens"];
  alwaysLoad: boolean;
}

/** Per server: metadata and token sums, the listing forms summed as listing.ts counts them. */
export function serverSummaries(servers: readonly CatalogServer[], tools: readonly CatalogTool[]): ServerSummary[] {
  const sums = new Map(servers.map((s) => [s.name, { full: 0, names: 0, shorts: 0, deferred: 0, core: 0 }]));
  for (const t of tools) {
    const s = sums.get(t.server);
    if (!s) continue;
    s.full += t.tokens.definition;
    if (t.alwaysLoad) s.core += t.tokens.definition;
    else ((s.names += t.tokens.name), (s.shorts += t.tokens.short), s.deferred++);
  }
  return servers.map((s) => {
    const x = sums.get(s.name)!;
    // a line per server that lists anything: `label:` + ` short` pieces + separators, or label + count + summary
    const grouped = x.deferred ? s.tokens.grouped + x.shorts + x.deferred : 0;
    const line = x.deferred ? s.tokens.servers + numberTokens(x.deferred) : 0;
    const meta = { ...(s.title ? { title: s.title } : {}), ...(s.description ? { description: s.description } : {}), summary: s.summary };
    return {
      name: s.name,
      transport: s.transport,
      tools: s.tools,
      serverInfo: s.serverInfo,
      ...meta,
      tokens: { full: x.full, names: x.names, grouped, servers: line, core: x.core },
    };
  });
}

export function toolRows(tools: readonly CatalogTool[]): ToolRow[] {
  return tools.map((t) => ({
    name: t.name,
    server: t.server,
    originalName: t.originalName,
    ...(t.title ? { title: t.title } : {}),
    description: t.description,
    tokens: { definition: t.tokens.definition, name: t.tokens.name, short: t.tokens.short },
    alwaysLoad: !!t.alwaysLoad,
  }));
}

/** The catalog-wide sums: every definition, the listing's lines, the always-loaded definitions. */
export function tokenSums(tools: readonly CatalogTool[]): { fullInjection: number; deferredNames: number; coreTools: number } {
  let fullInjection = 0;
  let deferredNames = 0;
  let coreTools = 0;
  for (const t of tools) {
    fullInjection += t.tokens.definition;
    if (t.alwaysLoad) coreTools += t.tokens.definition;
    else deferredNames += t.tokens.name;
  }
  return { fullInjection, deferredNames, coreTools };
}
