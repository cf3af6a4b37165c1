// /mcp: MCP Streamable HTTP for MCP clients (Claude Code, Cursor, VS Code, the Inspector, the SDK
// client), both protocol eras on one URL. A request carrying the 2026-07-28 `_meta` envelope (or
// that version's header) is served statelessly by mcp/modern.ts. Otherwise (2025-03-26 to
// 2025-11-25) one MCP session is one toolsearch session: `initialize` creates it and its id is the
// Mcp-Session-Id. A transport kept in memory would not survive another isolate or the Durable
// Object restarting, so each request gets a new SDK server on a stateless web-standard transport;
// mcp/protocol.ts checks the session id, the protocol version and batching first, and all state
// lives in the session's Durable Object. What the server answers is mcp/server.ts. Each JSON-RPC
// message of a batch is a request against the key's quota: the HTTP request was counted once
// (worker/index.ts), its other messages are counted here, the batch admitted whole or refused
// whole (a 429 before any of it runs).

import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type InitializeRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { json, route, type RouteContext } from "../http.ts";
import { serveModern } from "../mcp/modern.ts";
import { BATCH_VERSIONS, checkProtocol, mcpSession, readMessages, RpcError, rpcErrorResponse } from "../mcp/protocol.ts";
import { MCP_KEEPALIVE_MS, mcpCancels } from "../mcp/cancel.ts";
import { clientName, mcpServer, mcpSessionRequest, type McpSession } from "../mcp/server.ts";
import { MODERN_VERSION } from "../mcp/stable.ts";
import { elicitationAnswer, takeAnswers } from "../mcp/approval-ask.ts";
import { SessionClient } from "../session/client.ts";
import { createSession, sessionCatalog } from "../session/create.ts";
import { admit } from "../session/quota-client.ts";

async function serve(session: McpSession, c: RouteContext, body: unknown): Promise<Response> {
  const cat = await sessionCatalog(c, session);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, keepAliveMs: MCP_KEEPALIVE_MS });
  const server = mcpServer(c, session, cat, (message, relatedRequestId) => transport.send(message, { relatedRequestId }));
  await server.connect(transport);
  const res = await transport.handleRequest(c.request, { parsedBody: body });
  const headers = new Headers(res.headers);
  headers.set("mcp-session-id", session.id);
  return new Response(res.body, { status: res.status, headers });
}

/**
 * The transport's own header checks (406, 415), made before anything is stored: an initialize
 * the transport would refuse must not create a session first.
 */
function transportChecks(request: Request): void {
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
    throw new RpcError(-32000, "Not Acceptable: Client must accept both application/json and text/event-stream", 406);
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new RpcError(-32000, "Unsupported Media Type: Content-Type must be application/json", 415);
}

async function post(c: RouteContext): Promise<Response> {
  transportChecks(c.request);
  const { body, messages } = await readMessages(c.request);
  const n = messages.length;
  if (n > 1) await admit(c, "requests", n - 1, `a batch of ${n} messages counts ${n} requests, one per JSON-RPC message`);
  // the SDK's own classification: the 2026 envelope, or that version's header without it (answered -32602)
  if (!(await isLegacyRequest(c.request, body))) return serveModern(c, body);
  // the method first: a schema that fails builds an error (a stack trace) for every other message
  const init = messages.find(
    (m): m is InitializeRequest => (m as { method?: unknown } | null)?.method === "initialize" && isInitializeRequest(m),
  );
  if (init) {
    if (messages.length > 1) throw new RpcError(-32600, "Invalid Request: initialize must be sent alone, not in a batch");
    const { protocolVersion: requested, clientInfo, capabilities } = init.params;
    const protocolVersion = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    // form-mode elicitation: `{}` (form only, 2025-06-18) or `{form: {}}`; approvals ask through it
    const e = capabilities?.elicitation as Record<string, unknown> | undefined;
    const elicitation = e && (Object.keys(e).length === 0 || e.form) ? { elicitation: true as const } : {};
    const { state } = await createSession(
      c,
      await mcpSessionRequest(c, { protocolVersion, client: clientName(clientInfo), ...elicitation }),
    );
    return serve({ ...state, mcp: state.mcp! }, c, body);
  }
  const session = await mcpSession(c);
  checkProtocol(c);
  if (Array.isArray(body) && !BATCH_VERSIONS.has(session.mcp.protocolVersion)) {
    throw new RpcError(-32600, `Invalid Request: JSON-RPC batches are not allowed in protocol ${session.mcp.protocolVersion}`);
  }
  await mcpCancels(c, session.id, messages); // notifications/cancelled, and a connection closed mid-call (mcp/cancel.ts)
  // the client's answers to our approval elicitations (mcp/approval-ask.ts): accepted, as the transport would
  if (messages.length && messages.every((m) => elicitationAnswer(m))) {
    await takeAnswers(c, session, messages);
    return new Response(null, { status: 202, headers: { "mcp-session-id": session.id } });
  }
  return serve(session, c, body);
}

/** 2026-07-28 has no session to delete and no GET stream: 405, as the revision says. */
const modernRefusal = (c: RouteContext) =>
  c.request.headers.get("mcp-protocol-version") === MODERN_VERSION
    ? json(
        { jsonrpc: "2.0", id: null, error: { code: -32000, message: `Method Not Allowed: protocol ${MODERN_VERSION} has only POST` } },
        405,
        { allow: "POST" },
      )
    : null;

async function remove(c: RouteContext): Promise<Response> {
  const refused = modernRefusal(c);
  if (refused) return refused;
  const session = await mcpSession(c);
  checkProtocol(c);
  await SessionClient.of(c, session.id).remove();
  return new Response(null, { status: 204 });
}

/** No server-initiated stream: list_changed rides on the response of the toolSearch call. */
async function get(c: RouteContext): Promise<Response> {
  const refused = modernRefusal(c);
  if (refused) return refused;
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

// Host and Origin were checked before the key (worker/perimeter.ts): a page of another site learns nothing
const onError = rpcErrorResponse;
export const mcpRoutes = [
  route("POST", "/mcp", post, onError),
  route("DELETE", "/mcp", remove, onError),
  route("GET", "/mcp", get, onError),
];
