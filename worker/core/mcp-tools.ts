// The MCP gateway's view of a session, pure: the tools a client lists (core tools, marked to stay
// loaded; then in deferred mode toolSearch, carrying the frozen deferred listing in its description,
// and callTool, and in code-mode sessions runCode; then, with `inject` activation only, activated tools in activation order), paged
// with opaque cursors, and the initialize instructions, which point to that listing rather than
// repeat it. Every text comes from the session's frozen fields, so with `proxy` activation (the
// default) tools/list is the same bytes for every request of every session with the same options
// and tenant, and nothing a call does changes it.

import { RUN_CODE_TOOL } from "./run-code-tool.ts";
import type { CatalogTool } from "./catalog.ts";
import { ToolsearchError } from "./errors.ts";
import { ALWAYS_LOAD_META, GATEWAY_CALL_TOOL, gatewayToolSearch, type GatewayActivation } from "./mcp-gateway.ts";
import type { ToolDefinition } from "./prompt.ts";

/** tools/list page size: large enough that typical sessions fit one page */
export const MCP_PAGE_SIZE = 100;

/** A tool as MCP's tools/list describes it. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

export interface McpSessionView {
  mode: "deferred" | "full";
  activation: GatewayActivation;
  systemSection: string;
  coreTools: readonly string[];
  activations: readonly string[];
  /** code mode: runCode is listed too (run-code-tool.ts) */
  code?: "on";
}

export function mcpTool(t: CatalogTool): McpTool {
  const tool: McpTool = { name: t.name, description: t.description, inputSchema: t.inputSchema };
  if (t.title) tool.title = t.title;
  if (t.outputSchema) tool.outputSchema = t.outputSchema;
  if (t.annotations) tool.annotations = t.annotations;
  return tool;
}

/** A tool the session keeps loaded, marked so that clients which defer MCP tools keep it inline too. */
function keptTool(t: CatalogTool): McpTool {
  return { ...mcpTool(t), _meta: { ...ALWAYS_LOAD_META } };
}

/** A gateway tool (toolSearch, callTool) as MCP lists it: marked to stay loaded in clients that defer MCP tools. */
function gatewayTool(t: ToolDefinition): McpTool {
  return { name: t.name, description: t.description, inputSchema: t.inputSchema, _meta: { ...ALWAYS_LOAD_META } };
}

/** Every tool the session offers now, in its stable order. */
export function sessionMcpTools(byName: ReadonlyMap<string, CatalogTool>, s: McpSessionView): McpTool[] {
  const tool = (name: string) => {
    const t = byName.get(name);
    if (!t) throw new ToolsearchError("catalog_mismatch", `tool ${name} is not in the session's catalog`);
    return t;
  };
  // full mode lists every tool: only the catalog's alwaysLoad ones are marked, so a client's own
  // tool search still defers the rest
  if (s.mode === "full")
    return [
      ...s.coreTools.map(tool).map((t) => (t.alwaysLoad ? keptTool(t) : mcpTool(t))),
      ...(s.code === "on" ? [gatewayTool(RUN_CODE_TOOL)] : []),
    ];
  // deferred: core tools (alwaysLoad, the profile's) are what the session keeps loaded. Every
  // client tried hands tool descriptions to its model, and not all hand it the instructions, so
  // the listing rides in toolSearch's description, and only there (mcpInstructions points to it)
  const gateway = [gatewayToolSearch(s.systemSection, s.activation), GATEWAY_CALL_TOOL, ...(s.code === "on" ? [RUN_CODE_TOOL] : [])].map(
    gatewayTool,
  );
  const activated = s.activation === "inject" ? s.activations.map((n) => mcpTool(tool(n))) : [];
  return [...s.coreTools.map((n) => keptTool(tool(n))), ...gateway, ...activated];
}

const CURSOR_RE = /^o([0-9]{1,7})$/;

/** One page of a list; `cursor` is what the previous page returned as nextCursor. */
export function pageOf<T>(items: readonly T[], cursor: string | undefined, size = MCP_PAGE_SIZE): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const m = CURSOR_RE.exec(cursor);
    if (!m || Number(m[1]) > items.length)
      throw new ToolsearchError("bad_request", `cursor ${JSON.stringify(cursor.slice(0, 40))} is not one this server gave`);
    offset = Number(m[1]);
  }
  const page = items.slice(offset, offset + size);
  return offset + size < items.length ? { page, nextCursor: `o${offset + size}` } : { page };
}

export interface Unreachable {
  server: string;
  tools: number;
}

export interface GatewayOffer {
  /** the tools the gateway offers: visible ones of servers it reaches */
  offered: CatalogTool[];
  /** the servers of those tools, sorted (frozen in the session: its view) */
  servers: string[];
  counts: { tools: number; servers: number };
  /** servers with visible tools the gateway cannot run, and how many */
  unreachable: Unreachable[];
}

/** What an MCP session offers of the tools its tenant may see, given the servers the Worker reaches. */
export function gatewayOffer(visible: readonly CatalogTool[], reachable: { has(server: string): boolean }): GatewayOffer {
  const offered = visible.filter((t) => reachable.has(t.server));
  const servers = [...new Set(offered.map((t) => t.server))].sort();
  const missing = new Map<string, number>();
  for (const t of visible) if (!reachable.has(t.server)) missing.set(t.server, (missing.get(t.server) ?? 0) + 1);
  const unreachable = [...missing].sort(([a], [b]) => (a < b ? -1 : 1)).map(([server, tools]) => ({ server, tools }));
  return { offered, servers, counts: { tools: offered.length, servers: servers.length }, unreachable };
}

/**
 * The initialize instructions: what the gateway serves, where the deferred listing is (toolSearch's
 * description: said once), and what is not offered here.
 */
export function mcpInstructions(
  view: Pick<McpSessionView, "mode" | "activation">,
  offered: { tools: number; servers: number },
  unreachable: readonly Unreachable[],
): string {
  const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
  const serves = `This gateway serves ${plural(offered.tools, "tool")} from ${plural(offered.servers, "server")}`;
  const lines = [
    offered.tools === 0
      ? "This gateway offers no tools: it reaches none of its catalog's servers (the deployment's SERVERS names none of them)."
      : view.mode === "deferred"
        ? view.activation === "proxy"
          ? `${serves} through tool search: toolSearch's description lists them and says how to load them; run a loaded tool with callTool. tools/list never changes.`
          : `${serves} through tool search: toolSearch's description lists them and says how to load them; loaded tools join tools/list (the server sends notifications/tools/list_changed), and callTool runs them too.`
        : `${serves}; every one is in tools/list.`,
  ];
  if (unreachable.length) {
    const list = unreachable.map((u) => `${u.server} (${u.tools})`).join(", ");
    lines.push(`Not offered here, because this gateway cannot reach their servers (a client runs them itself): ${list}.`);
  }
  return `${lines.join("\n")}\n`;
}
