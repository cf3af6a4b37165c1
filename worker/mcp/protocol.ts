// The MCP gateway's protocol checks, before any SDK code runs (Host and Origin were checked before
// the key: worker/perimeter.ts): the JSON-RPC body (size, syntax, batches), the
// Mcp-Session-Id that names a gateway session, the MCP-Protocol-Version header, and the JSON-RPC
// error shape every failure on /mcp is answered in (the Worker's one handler calls
// rpcErrorResponse for this route).

import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../core/errors.ts";
import { json, MAX_BODY_BYTES, readText, tooDeep, type RouteContext } from "../http.ts";
import { SessionClient, type FrozenState } from "../session/client.ts";
import type { McpSession } from "./server.ts";

/** A protocol-level failure, answered as a JSON-RPC error with `rpcCode` and the HTTP status. */
export class RpcError extends ToolsearchError {
  readonly rpcCode: number;
  constructor(rpcCode: number, message: string, status = 400) {
    super(status === 404 ? "not_found" : status === 403 ? "forbidden" : "bad_request", message, status);
    this.rpcCode = rpcCode;
  }
}

/** JSON-RPC's error shape for every error on /mcp (index.ts's one handler calls this). */
export function rpcErrorResponse(err: ToolsearchError): Response {
  // -32000: a server error of the implementation's own (a quota reached: the HTTP 429 and retry-after say when to retry)
  const code =
    err instanceof RpcError ? err.rpcCode : err.status === 404 ? -32001 : err.status >= 500 ? -32603 : err.status === 429 ? -32000 : -32600;
  return json({ jsonrpc: "2.0", id: null, error: { code, message: err.message } }, err.status);
}

/** Protocol versions that allow JSON-RPC batches (2025-06-18 removed them). */
export const BATCH_VERSIONS = new Set(["2025-03-26"]);

/** The JSON-RPC body: at most MAX_BODY_BYTES bytes (counted while reading: http.ts), valid, not nested too deep. */
export async function readMessages(request: Request): Promise<{ body: unknown; messages: unknown[] }> {
  const text = await readText(request, MAX_BODY_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new RpcError(-32700, `Parse error: ${(e as Error).message}`);
  }
  const deep = tooDeep(body);
  if (deep) throw new RpcError(-32600, `Invalid Request: ${deep}`);
  const messages = Array.isArray(body) ? body : [body];
  if (!messages.length) throw new RpcError(-32600, "Invalid Request: an empty batch");
  for (const m of messages) {
    if (!JSONRPCMessageSchema.safeParse(m).success) throw new RpcError(-32600, "Invalid Request: not a JSON-RPC 2.0 message");
  }
  return { body, messages };
}

/**
 * The MCP-Protocol-Version header: any supported version, as the SDK's own server accepts (a
 * client may resume or open streams with another one); the negotiated version still decides
 * batching. No header: a 2025-03-26 client, which may omit it.
 */
export function checkProtocol(c: RouteContext): void {
  const given = c.request.headers.get("mcp-protocol-version");
  if (given === null || SUPPORTED_PROTOCOL_VERSIONS.includes(given)) return;
  throw new RpcError(
    -32000,
    `Bad Request: unsupported MCP-Protocol-Version ${given.slice(0, 40)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
  );
}

/**
 * The MCP session named by the request's Mcp-Session-Id: 400 without one, 404 for an unknown one.
 * Its frozen fields come from the isolate's cache where it has them (no object call, no write: a
 * call marks the session used in its own transaction); an `inject` session's tools/list shows its
 * activations, so those sessions are read from the object.
 */
export async function mcpSession(c: RouteContext): Promise<McpSession> {
  const id = c.request.headers.get("mcp-session-id");
  if (!id) throw new RpcError(-32000, "Bad Request: Mcp-Session-Id header is required (send initialize first)");
  let state: FrozenState & { activations?: string[] };
  try {
    const client = SessionClient.of(c, id);
    state = await client.frozen();
    if (state.activation === "inject" && !("activations" in state)) state = await client.state();
  } catch (e) {
    if (e instanceof ToolsearchError && e.code === "not_found") throw new RpcError(-32001, `Session not found: ${id.slice(0, 80)}`, 404);
    throw e;
  }
  // sessions made on /v1 froze a prompt for a chat client, not this one
  if (!state.mcp) throw new RpcError(-32001, `Session not found: ${id} is not an MCP session`, 404);
  return { ...state, mcp: state.mcp, activations: state.activations ?? [] };
}
