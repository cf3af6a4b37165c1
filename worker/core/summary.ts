// What a catalog costs, per server and per tool, from the token counts the CLI stored: the
// figures GET /v1/catalog answers and the page (and the CLI's --html files) draw. Sums of per-tool
// counts only: the Worker never loads a tokenizer.

import type { CatalogServer, CatalogTool } from "./catalog.ts";

export interface ServerTokens {
  /** every tool of the server injected: the sum of their definitions */
  full: number;
  /** the server's lines in the deferred listing (names form: one name per line) */
  listing: number;
  /** always-loaded tools of the server: their definitions, in every prompt */
  core: number;
}

export interface ServerSummary {
  name: string;
  transport: CatalogServer["transport"];
  tools: number;
  serverInfo: CatalogServer["serverInfo"];
  tokens: ServerTokens;
}

/** A tool as the catalog view's table lists it (no schemas: their size is `tokens.definition`). */
export interface ToolRow {
  name: string;
  server: string;
  originalName: string;
  title?: string;
  description: string;
  tokens: { definition: number; name: number };
  alwaysLoad: boolean;
}

export function serverSummaries(servers: readonly CatalogServer[], tools: readonly CatalogTool[]): ServerSummary[] {
  const sums = new Map<string, ServerTokens>(servers.map((s) => [s.name, { full: 0, listing: 0, core: 0 }]));
  for (const t of tools) {
    const s = sums.get(t.server);
    if (!s) continue;
    s.full += t.tokens.definition;
    if (t.alwaysLoad) s.core += t.tokens.definition;
    else s.listing += t.tokens.name;
  }
  return servers.map((s) => ({ name: s.name, transport: s.transport, tools: s.tools, serverInfo: s.serverInfo, tokens: sums.get(s.name)! }));
}

export function toolRows(tools: readonly CatalogTool[]): ToolRow[] {
  return tools.map((t) => ({
    name: t.name,
    server: t.server,
    originalName: t.originalName,
    ...(t.title ? { title: t.title } : {}),
    description: t.description,
    tokens: { definition: t.tokens.definition, name: t.tokens.name },
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
