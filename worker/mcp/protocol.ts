// The MCP gateway's protocol checks, before any SDK code runs: the JSON-RPC body (size, syntax,
// batches), the Mcp-Session-Id that names a gateway session, the MCP-Protocol-Version header, and
// the JSON-RPC error shape every failure on /mcp is answered in (the Worker's one handler calls
// rpcErrorResponse for this route).

import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../core/errors.ts";
import { json, MAX_BODY_BYTES, type RouteContext } from "../http.ts";
import { SessionClient } from "../session/client.ts";
import type { SessionState } from "../session/state.ts";
import type { McpSession } from "./server.ts";

/** A protocol-level failure, answered as a JSON-RPC error with `rpcCode` and the HTTP status. */
export class RpcError extends ToolsearchError {
  readonly rpcCode: number;
  constructor(rpcCode: number, message: string, status = 400) {
    super(status === 404 ? "not_found" : "bad_request", message, status);
    this.rpcCode = rpcCode;
  }
}

/** JSON-RPC's error shape for every error on /mcp (index.ts's one handler calls this). */
export function rpcErrorResponse(err: ToolsearchError): Response {
  const code = err instanceof RpcError ? err.rpcCode : err.status === 404 ? -32001 : err.status >= 500 ? -32603 : -32600;
  return json({ jsonrpc: "2.0", id: null, error: { code, message: err.message } }, err.status);
}

/** Protocol versions that allow JSON-RPC batches (2025-06-18 removed them). */
export const BATCH_VERSIONS = new Set(["2025-03-26"]);

export async function readMessages(request: Request): Promise<{ body: unknown; messages: unknown[] }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw new RpcError(-32600, `body is ${declared} bytes; the limit is ${MAX_BODY_BYTES}`, 413);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new RpcError(-32600, `body is over ${MAX_BODY_BYTES} bytes`, 413);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new RpcError(-32700, `Parse error: ${(e as Error).message}`);
  }
  const messages = Array.isArray(body) ? body : [body];
  if (!messages.length) throw new RpcError(-32600, "Invalid Request: an empty batch");
  for (const m of messages) {
    if (!JSONRPCMessageSchema.safeParse(m).success) throw new RpcError(-32600, "Invalid Request: not a JSON-RPC 2.0 message");
  }
  return { body, messages };
}

/** The negotiated protocol version of a session, checked against the request's header. */
export function checkProtocol(c: RouteContext, session: McpSession): void {
  const given = c.request.headers.get("mcp-protocol-version");
  if (given === null) return; // 2025-03-26 clients may omit it; the session knows what was negotiated
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(given))
    throw new RpcError(
      -32000,
      `Bad Request: unsupported MCP-Protocol-Version ${given.slice(0, 40)} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
    );
  if (given !== session.mcp.protocolVersion)
    throw new RpcError(
      -32000,
      `Bad Request: MCP-Protocol-Version ${given} differs from the version negotiated for this session (${session.mcp.protocolVersion})`,
    );
}

/** The MCP session named by the request's Mcp-Session-Id: 400 without one, 404 for an unknown one. */
export async function mcpSession(c: RouteContext): Promise<McpSession> {
  const id = c.request.headers.get("mcp-session-id");
  if (!id) throw new RpcError(-32000, "Bad Request: Mcp-Session-Id header is required (send initialize first)");
  let state: SessionState;
  try {
    state = await SessionClient.of(c, id).state();
  } catch (e) {
    if (e instanceof ToolsearchError && e.code === "not_found") throw new RpcError(-32001, `Session not found: ${id.slice(0, 80)}`, 404);
    throw e;
  }
  // sessions made on /v1 froze a prompt for a chat client, not this one
  if (!state.mcp) throw new RpcError(-32001, `Session not found: ${id} is not an MCP session`, 404);
  return state as McpSession;
}
