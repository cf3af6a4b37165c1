// /mcp: MCP Streamable HTTP for MCP clients (Claude Code, Cursor, VS Code, the Inspector, the SDK
// client). One MCP session is one toolsearch session: `initialize` creates it and its id is the
// Mcp-Session-Id. A transport kept in memory would not survive another isolate or the Durable
// Object restarting, so each request gets a new SDK server on a stateless web-standard transport;
// this file checks the session id, the protocol version and batching itself, and all state lives
// in the session's Durable Object. What the server answers is worker/mcp-server.ts.

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { ToolsearchError } from "../core/errors.ts";
import { json, MAX_BODY_BYTES, route, type RouteContext } from "../http.ts";
import { mcpServer, mcpSessionRequest, type McpSession } from "../mcp-server.ts";
import type { SessionState } from "../session-state.ts";
import { createSession, forget, requireSession, sessionCatalog, sessionStub } from "../sessions.ts";

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
const BATCH_VERSIONS = new Set(["2025-03-26"]);

async function readMessages(request: Request): Promise<{ body: unknown; messages: unknown[] }> {
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
function checkProtocol(c: RouteContext, session: McpSession): void {
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
async function mcpSession(c: RouteContext): Promise<McpSession> {
  const id = c.request.headers.get("mcp-session-id");
  if (!id) throw new RpcError(-32000, "Bad Request: Mcp-Session-Id header is required (send initialize first)");
  let state: SessionState;
  try {
    state = (await requireSession(c, id)).state;
  } catch (e) {
    if (e instanceof ToolsearchError && e.code === "not_found") throw new RpcError(-32001, `Session not found: ${id.slice(0, 80)}`, 404);
    throw e;
  }
  // sessions made on /v1 froze a prompt for a chat client, not this one
  if (!state.mcp) throw new RpcError(-32001, `Session not found: ${id} is not an MCP session`, 404);
  return state as McpSession;
}

async function serve(session: McpSession, c: RouteContext, body: unknown): Promise<Response> {
  const cat = await sessionCatalog(c, session);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  const server = mcpServer(c, session, cat);
  await server.connect(transport);
  const res = await transport.handleRequest(c.request, { parsedBody: body });
  const headers = new Headers(res.headers);
  headers.set("mcp-session-id", session.id);
  return new Response(res.body, { status: res.status, headers });
}

async function post(c: RouteContext): Promise<Response> {
  const { body, messages } = await readMessages(c.request);
  const init = messages.find(isInitializeRequest);
  if (init) {
    if (messages.length > 1) throw new RpcError(-32600, "Invalid Request: initialize must be sent alone, not in a batch");
    const requested = (init as { params: { protocolVersion: string } }).params.protocolVersion;
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    const { state } = await createSession(c, await mcpSessionRequest(c, protocolVersion));
    return serve(state as McpSession, c, body);
  }
  const session = await mcpSession(c);
  checkProtocol(c, session);
  if (Array.isArray(body) && !BATCH_VERSIONS.has(session.mcp.protocolVersion)) {
    throw new RpcError(-32600, `Invalid Request: JSON-RPC batches are not allowed in protocol ${session.mcp.protocolVersion}`);
  }
  return serve(session, c, body);
}

async function remove(c: RouteContext): Promise<Response> {
  const session = await mcpSession(c);
  checkProtocol(c, session);
  forget(c, session.id);
  await sessionStub(c, session.id).remove();
  return new Response(null, { status: 204 });
}

/** No server-initiated stream: list_changed rides on the response of the toolSearch call. */
async function get(c: RouteContext): Promise<Response> {
  await mcpSession(c);
  return json(
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: "Method Not Allowed: this server sends notifications on POST responses; there is no GET stream" },
    },
    405,
    { allow: "POST, DELETE" },
  );
}

const onError = rpcErrorResponse;
export const mcpRoutes = [
  route("POST", "/mcp", post, onError),
  route("DELETE", "/mcp", remove, onError),
  route("GET", "/mcp", get, onError),
];
