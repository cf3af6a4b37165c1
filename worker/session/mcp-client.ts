// One tools/call to a remote MCP server. A server not called yet is first asked server/discover:
// one that speaks MCP 2026-07-28 is called through mcp-client-2026.ts (the v2 SDK client; no
// sessions). The rest, below, with the v1 SDK Client (validator: @cfworker/json-schema, since
// Ajv's code generation is refused in workerd). A client is built per call: with a stored
// Mcp-Session-Id it resumes the server's session without a round trip (no initialize), so the
// session object keeps no connection between requests. Without one it initializes (Streamable
// HTTP; SSE when the server refuses it) and reports the new session for the caller to store. A
// 404 on a stored session means the server expired it: re-initialize, call again, and say so.
// No standalone GET stream is opened (the custom fetch answers GET 405, which the SDK accepts):
// nothing server-initiated is needed, and an open stream would pin the object in memory. With
// `onProgress`, the call carries a progressToken and the server's progress goes to it. A 401 is
// the failure `unauthorized` (a per-user token refused: session/credentials.ts refreshes it). No
// request carrying the server's headers follows a redirect (`redirect: "manual"`): they hold secrets.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult } from "../core/call-result.ts";
import type { ServerConfig } from "../core/servers.ts";
import { boundedResponse } from "../http.ts";
import { callModern, MODERN_PROTOCOL } from "./mcp-client-2026.ts";
import { brokenOff, classify, expired, NoResponse, UpstreamFailure } from "./upstream-failure.ts";

/**
 * What a session keeps of a server: its MCP session, or for a server that keeps none an empty
 * `sessionId` (nothing to resume or DELETE; a legacy one is initialized on each call), with the
 * server/discover result of an MCP 2026-07-28 server (mcp-client-2026.ts).
 */
export interface UpstreamSession {
  sessionId: string;
  protocolVersion: string;
  discover?: string;
}

/** A server's progress on a call (MCP notifications/progress, without the token). */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RemoteCall {
  result: CallToolResult;
  /** the session the call ran in (sessionId "": the server keeps none, or SSE; null: unchanged, the call failed) */
  session: UpstreamSession | null;
  /** the stored session had expired and a new one was opened */
  reinitialized: boolean;
}

const CLIENT_INFO = { name: "toolsearch-edge", version: "1.0.0" };

/** The header sets of calls a server answered 401 (each call's set is its own object: credentials.ts). */
const refused = new WeakSet<Record<string, string>>();

/**
 * The transport's fetch: adds the server's headers, notes a 401 (`refused`), declines the GET stream, turns a fetch that
 * got no response into NoResponse, reads each answer to `maxBytes` at most (M6; resources and
 * prompts too, R2-M3), and keeps the notifications it sends (`sent`) so a
 * cancellation can be awaited before the client closes (closing aborts whatever is in flight).
 */
export function transportFetch(headers: Record<string, string>, sent: Promise<unknown>[], maxBytes = Infinity): typeof fetch {
  return ((url: URL | RequestInfo, init?: RequestInit) => {
    // the standalone server-to-client stream (the only GET this transport makes): declined
    if ((init?.method ?? "GET").toUpperCase() === "GET") return Promise.resolve(new Response(null, { status: 405 }));
    const h = new Headers(init?.headers);
    for (const [k, v] of Object.entries(headers)) h.set(k, v);
    // a redirect is not followed: the server's secret headers would go along to wherever it points
    const res = fetch(url, { ...init, headers: h, redirect: "manual" }).then(
      // the answer is read to maxBytes at most; the error says "terminated", so once() fails the call
      (r) => (
        r.status === 401 && refused.add(headers),
        boundedResponse(
          r,
          maxBytes,
          () => new UpstreamFailure("transport_error", `the server's answer was terminated at ${maxBytes} bytes, the read limit`),
        )
      ),
      (e: unknown) => {
        throw new NoResponse(
          "transport_error",
          `no response from the server (connection refused or lost): ${String((e as Error)?.message ?? e).slice(0, 200)}`,
        );
      },
    );
    if (typeof init?.body === "string" && init.body.includes('"notifications/cancelled"')) sent.push(res.catch(() => {}));
    return res;
  }) as typeof fetch;
}

export async function connect(
  server: ServerConfig,
  headers: Record<string, string>,
  stored: UpstreamSession | null,
  sent: Promise<unknown>[],
  maxBytes?: number,
): Promise<{ client: Client; transport: Transport & { sessionId?: string; protocolVersion?: string } }> {
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  // Each call is a new client on a shared server session, and the SDK numbers requests from 0:
  // concurrent calls would reuse ids in one session (the server routes answers by id), and SDK
  // servers ignore notifications/cancelled for id 0. Start from a random id instead.
  Reflect.set(client, "_requestMessageId", 1 + Math.floor(Math.random() * 2 ** 30));
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    sessionId: stored?.sessionId,
    fetch: transportFetch(headers, sent, maxBytes),
    reconnectionOptions: { maxReconnectionDelay: 1000, initialReconnectionDelay: 100, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
  });
  if (stored) transport.setProtocolVersion(stored.protocolVersion);
  try {
    await client.connect(transport, { timeout: server.timeoutMs });
    return { client, transport };
  } catch (e) {
    // a server that speaks only the old HTTP+SSE transport refuses the initialize POST with a 4xx
    if (stored || refused.has(headers) || !(e instanceof StreamableHTTPError) || !e.code || e.code < 400 || e.code >= 500) throw e;
    const sse = new SSEClientTransport(new URL(server.url), {
      requestInit: { headers },
      eventSourceInit: {
        fetch: (u, i) => fetch(u, { ...i, headers: { ...Object.fromEntries(new Headers(i?.headers)), ...headers }, redirect: "manual" }),
      },
    });
    const fallback = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
    await fallback.connect(sse, { timeout: server.timeoutMs });
    return { client: fallback, transport: sse };
  }
}

/** One tools/call: the tool's original name and checked arguments, and what may watch it. */
export interface ToolCallRequest {
  tool: string;
  args: Record<string, unknown>;
  /** aborts the call (cancelled by its caller, session deleted); the server is sent notifications/cancelled */
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** the most bytes read of one response: past it reading stops and the call fails (M6) */
  maxBytes?: number;
}

async function once(
  server: ServerConfig,
  headers: Record<string, string>,
  stored: UpstreamSession | null,
  { tool, args, signal, onProgress, maxBytes }: ToolCallRequest,
): Promise<{ result: CallToolResult; session: UpstreamSession | null }> {
  const sent: Promise<unknown>[] = [];
  const { client, transport } = await connect(server, headers, stored, sent, maxBytes);
  const broken = brokenOff(client);
  let failed = false;
  try {
    // on timeout or abort the SDK sends notifications/cancelled for this request (see finally)
    const progress = onProgress && { onprogress: ({ progress, total, message }: Progress) => onProgress({ progress, total, message }) };
    const call = client.callTool({ name: tool, arguments: args }, undefined, { timeout: server.timeoutMs, signal, ...progress });
    const raw = (await Promise.race([call, broken])) as Record<string, unknown>;
    // servers of protocol 2024-10-07 may answer { toolResult }: the same thing in an older shape
    const result = (
      Array.isArray(raw.content) ? raw : { content: [{ type: "text", text: JSON.stringify(raw.toolResult ?? raw) }] }
    ) as CallToolResult;
    // no session id (a stateless server, or SSE): kept as such, so the next call skips the 2026 probe
    return { result, session: { sessionId: transport.sessionId ?? "", protocolVersion: transport.protocolVersion ?? "" } };
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    // a cancellation the SDK started (its send reaches fetch a few turns later) must reach the
    // server before close() aborts its fetch
    if (failed) await new Promise((r) => setTimeout(r, 0));
    if (sent.length) await Promise.race([Promise.all(sent), new Promise((r) => setTimeout(r, 2000))]);
    // closes this client only (no DELETE): the server's session stays for the next call to resume
    await client.close().catch(() => {});
  }
}

/** Call `tool` on the server, resuming `stored` when given; a 401 anywhere is the failure `unauthorized`. */
export async function callRemote(...args: Parameters<typeof callOnce>): Promise<RemoteCall> {
  const [, headers, , request] = args;
  return callOnce(...args).catch((e: unknown) => {
    if (refused.has(headers) && !request.signal?.aborted)
      throw new UpstreamFailure("unauthorized", "HTTP 401: the server refused the credentials");
    throw e;
  });
}

async function callOnce(
  server: ServerConfig,
  headers: Record<string, string>,
  stored: UpstreamSession | null,
  request: ToolCallRequest,
): Promise<RemoteCall> {
  const { signal } = request;
  // a server not called yet is asked server/discover first; one that speaks MCP 2026-07-28 keeps no
  // session, so its calls are single requests: nothing to resume, recover or DELETE
  if (!stored || stored.discover) {
    let modern = await callModern(server, transportFetch(headers, [], request.maxBytes), stored?.discover ?? null, request);
    // the server refused a call as 2026-07-28 (an older server came back at its URL): ask it again, once
    if (modern.kind === "failed" && modern.refused && stored)
      modern = await callModern(server, transportFetch(headers, [], request.maxBytes), null, request);
    if (modern.kind === "failed") throw new UpstreamFailure(modern.failure, modern.message);
    if (modern.kind === "result") {
      const session = { sessionId: "", protocolVersion: MODERN_PROTOCOL, discover: modern.discover };
      return { result: modern.result, session, reinitialized: false };
    }
  }
  if (stored && !stored.sessionId) stored = null; // a legacy server without sessions: initialize each call
  try {
    return { ...(await once(server, headers, stored, request)), reinitialized: false };
  } catch (e) {
    if (stored && expired(e)) {
      // fall through to one retry in a new session. Safe even for a non-idempotent tool: the server
      // refused the request at its session check, before dispatching it, so the call never ran.
    } else if (!signal?.aborted && e instanceof McpError && e.code !== ErrorCode.RequestTimeout && e.code !== ErrorCode.ConnectionClosed) {
      // the server answered the call with a JSON-RPC error (unknown tool, bad params): the tool failed
      return {
        result: { content: [{ type: "text", text: `MCP error ${e.code}: ${e.message}` }], isError: true },
        session: stored,
        reinitialized: false,
      };
    } else throw classify(e, server, signal);
  }
  try {
    return { ...(await once(server, headers, null, request)), reinitialized: true };
  } catch (e) {
    throw classify(e, server, signal);
  }
}

/** End a server session (HTTP DELETE); 405 means the server keeps sessions until it expires them. */
export async function closeRemote(server: ServerConfig, headers: Record<string, string>, session: UpstreamSession): Promise<number> {
  if (!session.sessionId) return 204; // the server keeps no session: nothing to end
  const res = await fetch(server.url, {
    method: "DELETE",
    headers: { ...headers, "mcp-session-id": session.sessionId, "mcp-protocol-version": session.protocolVersion },
    signal: AbortSignal.timeout(server.timeoutMs),
    redirect: "manual", // the secret headers must not follow a redirect to another origin
  });
  await res.body?.cancel();
  return res.status;
}
