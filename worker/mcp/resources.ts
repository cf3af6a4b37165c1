// Upstream resources and prompts on /mcp, whatever the protocol era: the capabilities a session
// advertises (resources and prompts only when it has a server to serve them), the request each
// MCP method becomes (core/mcp-resources.ts), and the answer or the JSON-RPC error each refusal is:
// an unknown or unreadable URI -32002 (the spec's "Resource not found"), an unknown prompt -32602,
// a server's own error with its code, a failure on the way -32603. The session does the work
// (session/resource-gate.ts); the SDK servers (server.ts, modern.ts) register these handlers.

import type { GatewayResourceOp } from "../core/mcp-resources.ts";
import type { CallContext } from "../session/execution.ts";
import type { GatewayPort } from "./tools.ts";

type Params = Record<string, unknown> | undefined;

/** Each method a session serves when it has servers, and the request it makes of them. */
export const RESOURCE_METHODS = {
  "resources/list": () => ({ method: "resources/list" }),
  "resources/templates/list": () => ({ method: "resources/templates/list" }),
  "prompts/list": () => ({ method: "prompts/list" }),
  "resources/read": (p: Params) => ({ method: "resources/read", uri: String(p?.uri ?? "") }),
  "prompts/get": (p: Params) => ({
    method: "prompts/get",
    name: String(p?.name ?? ""),
    ...(p?.arguments ? { arguments: p.arguments as Record<string, string> } : {}),
  }),
} satisfies Record<string, (p: Params) => GatewayResourceOp>;

export type ResourceMethod = keyof typeof RESOURCE_METHODS;

/** Resources and prompts are advertised only when some server may serve them. */
export function resourceCapabilities(servers: readonly string[]): { resources?: object; prompts?: object } {
  return servers.length ? { resources: {}, prompts: {} } : {};
}

/** The result of `method`, or the error `rpcError` makes for its refusal. */
export async function answerResource(
  port: GatewayPort,
  method: ResourceMethod,
  params: Params,
  context: CallContext,
  rpcError: (code: number, message: string) => Error,
): Promise<Record<string, unknown>> {
  const outcome = await port.resources(RESOURCE_METHODS[method](params), context);
  if (outcome.ok) return outcome.result;
  if (outcome.code === "not_found") throw rpcError(method === "resources/read" ? -32002 : -32602, outcome.message);
  throw rpcError(outcome.rpcCode ?? -32603, outcome.message);
}
