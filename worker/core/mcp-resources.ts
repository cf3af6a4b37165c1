// Upstream servers' resources and prompts through the MCP gateway, pure: the requests a client
// may make (GatewayResourceOp), the server-prefixed names prompts and resources are listed under
// (`mcp__<server>__<name>`, as tools are), the way back from a prefixed prompt name to its server,
// and the resource URIs a tool result hands the client (`resource_link` and embedded `resource`
// content), which the session records so that reading one goes to the server that returned it.

import type { CallToolResult } from "./call-result.ts";

/** What a client asks of upstream resources and prompts (the MCP methods of the same names). */
export type GatewayResourceOp =
  | { method: "resources/list" }
  | { method: "resources/templates/list" }
  | { method: "prompts/list" }
  | { method: "resources/read"; uri: string }
  | { method: "prompts/get"; name: string; arguments?: Record<string, string> };

/** The answer: the MCP result, or a refusal the surface words as its protocol's error. */
export type ResourceOutcome =
  | { ok: true; result: Record<string, unknown> }
  /**
   * `not_found`: unknown or not readable here; `failed`: the server failed (`rpcCode`: its own
   * JSON-RPC error); `rate_limited`: the key's quota of upstream calls is used up (`rpcCode` -32000)
   */
  | { ok: false; code: "not_found" | "failed" | "rate_limited"; message: string; rpcCode?: number };

export const prefixed = (server: string, name: string) => `mcp__${server}__${name}`;

/** The server and the server's own name in a prefixed name; the longest server prefix wins. */
export function splitPrefixed(name: string, servers: readonly string[]): { server: string; name: string } | null {
  let best: { server: string; name: string } | null = null;
  for (const server of servers) {
    const p = prefixed(server, "");
    if (name.startsWith(p) && name.length > p.length && (!best || server.length > best.server.length))
      best = { server, name: name.slice(p.length) };
  }
  return best;
}

/** The resource URIs a tool result gives the client: resource links and embedded resources. */
export function resourceUris(result: CallToolResult): string[] {
  const uris = new Set<string>();
  for (const c of result.content) {
    if (c.type === "resource_link" && typeof c.uri === "string") uris.add(c.uri);
    const embedded = c.type === "resource" ? (c.resource as Record<string, unknown> | undefined) : undefined;
    if (embedded && typeof embedded.uri === "string") uris.add(embedded.uri);
  }
  return [...uris];
}

/** A listed resource, template or prompt under its server-prefixed name (URIs are left as they are). */
export function prefixItem(server: string, item: Record<string, unknown>): Record<string, unknown> {
  return typeof item.name === "string" ? { ...item, name: prefixed(server, item.name) } : item;
}
