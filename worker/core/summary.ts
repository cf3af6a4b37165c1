// What a catalog costs, per server and per tool, from the token counts the CLI stored: the
// figures GET /v1/catalog answers, the page and the CLI's `catalog stats` (and --html files) show,
// and the deferrable total a session's reason states. Sums of per-tool counts only (the Worker
// never loads a tokenizer), all through definitionTokens, so every surface shows the same totals;
// the TypeScript declarations' total (code mode) beside them, through declarationTokens.

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
  /** indexed, never shown to a model: the page's explorer shows it */
  search?: CatalogTool["search"];
}

/** Per server: metadata and token sums, the listing forms summed as listing.ts counts them. */
export function serverSummaries(servers: readonly CatalogServer[], tools: readonly CatalogTool[]): ServerSummary[] {
  const byServer = new Map<string, CatalogTool[]>(servers.map((s) => [s.name, []]));
  for (const t of tools) byServer.get(t.server)?.push(t);
  return servers.map((s) => {
    const own = byServer.get(s.name)!;
    const totals = catalogTotals(own);
    const deferred = own.filter((t) => !t.alwaysLoad);
    const x = { full: totals.fullInjection, core: totals.coreTools, names: totals.deferredNames, deferred: deferred.length };
    const shorts = deferred.reduce((n, t) => n + t.tokens.short, 0);
    // a line per server that lists anything: `label:` + ` short` pieces + separators, or label + count + summary
    const grouped = x.deferred ? s.tokens.grouped + shorts + x.deferred : 0;
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
    tokens: {
      definition: t.tokens.definition,
      name: t.tokens.name,
      short: t.tokens.short,
      ...(t.tokens.declaration !== undefined ? { declaration: t.tokens.declaration } : {}),
    },
    alwaysLoad: !!t.alwaysLoad,
    ...(t.search ? { search: t.search } : {}),
  }));
}

/**
 * Tokens of these tools' definitions: the sum of each tool's stored count. The one way any total
 * of schemas is computed (full injection, deferrable tools, core tools, per server). Tokenizing the
 * whole tools array instead gives about one token per tool less (separators merge with braces).
 */
export function definitionTokens(tools: readonly Pick<CatalogTool, "tokens">[]): number {
  return tools.reduce((n, t) => n + t.tokens.definition, 0);
}

/**
 * Tokens of these tools as TypeScript declarations (what a code-mode toolSearch shows instead of
 * their schemas): the sum of each tool's stored count, or null when a tool has none (a catalog
 * built before code mode, or a client-declared tool).
 */
export function declarationTokens(tools: readonly Pick<CatalogTool, "tokens">[]): number | null {
  let n = 0;
  for (const t of tools) {
    if (t.tokens.declaration === undefined) return null;
    n += t.tokens.declaration;
  }
  return n;
}

export interface CatalogTotals {
  /** every tool injected */
  fullInjection: number;
  /** the tools a session may defer (all but alwaysLoad): what the policy weighs against the context window */
  deferrable: number;
  /** the always-loaded tools, in every prompt */
  coreTools: number;
  /** the `names` listing's lines of the deferrable tools */
  deferredNames: number;
  /** every tool as a TypeScript declaration (declarationTokens): fullInjection's counterpart in code mode */
  declarations: number | null;
}

/** The catalog-wide sums: every definition, the deferrable ones, the always-loaded ones, the listing's lines. */
export function catalogTotals(tools: readonly CatalogTool[]): CatalogTotals {
  const always = tools.filter((t) => t.alwaysLoad);
  const deferrable = tools.filter((t) => !t.alwaysLoad);
  return {
    fullInjection: definitionTokens(tools),
    deferrable: definitionTokens(deferrable),
    coreTools: definitionTokens(always),
    deferredNames: deferrable.reduce((n, t) => n + t.tokens.name, 0),
    declarations: declarationTokens(tools),
  };
}
