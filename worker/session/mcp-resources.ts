// One resources or prompts request to a remote MCP server (resources/list, resources/templates/list,
// resources/read, prompts/list, prompts/get), in the session's kept-alive server session, as a
// tools/call is (mcp-client.ts, whose connection helpers this reuses): a stored Mcp-Session-Id is
// resumed without a round trip, a server that expired it gets one new session and the request
// again, and the caller stores the session the request ended in. A server stored as MCP 2026-07-28
// (its server/discover result) is asked with the v2 SDK client, no session. Every answer is read
// through mcp-client.ts's transport fetch, as a tool result is: to readLimit() at most, past which
// reading stops and the request fails (R2-M3), with no redirect followed. A list walks the server's
// pages (at most MAX_PAGES) and keeps items up to the result cap. A server's own JSON-RPC error
// (-32601 for a server without resources or prompts, -32002 for an unknown resource) is an
// UpstreamError with its code.

import { Client as ModernClient, ProtocolError, StreamableHTTPClientTransport, type DiscoverResult } from "@modelcontextprotocol/client";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { byteSize, readLimit } from "../core/call-result.ts";
import type { GatewayResourceOp } from "../core/mcp-resources.ts";
import type { ServerConfig } from "../core/servers.ts";
import { connect, transportFetch, type UpstreamSession } from "./mcp-client.ts";
import { brokenOff, classify, expired, UpstreamFailure } from "./upstream-failure.ts";
import { MODERN_PROTOCOL } from "./mcp-client-2026.ts";

/** The server answered with a JSON-RPC error: nothing failed on the way. */
export class UpstreamError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const MAX_PAGES = 10;
const CLIENT_INFO = { name: "toolsearch-edge", version: "1.0.0" };

type Result = Record<string, unknown>;

/** The methods both SDK clients share for these requests. */
interface ResourceClient {
  listResources(p?: { cursor?: string }, o?: object): Promise<Result>;
  listResourceTemplates(p?: { cursor?: string }, o?: object): Promise<Result>;
  listPrompts(p?: { cursor?: string }, o?: object): Promise<Result>;
  readResource(p: { uri: string }, o?: object): Promise<Result>;
  getPrompt(p: { name: string; arguments?: Record<string, string> }, o?: object): Promise<Result>;
}

const LISTS = {
  "resources/list": ["listResources", "resources"],
  "resources/templates/list": ["listResourceTemplates", "resourceTemplates"],
  "prompts/list": ["listPrompts", "prompts"],
} as const;

/** How much is read of each answer (`maxBytes`), and kept of a list (`listMaxBytes`: the result cap). */
interface Bounds {
  timeout: number;
  maxBytes: number;
  listMaxBytes: number;
}

async function send(client: ResourceClient, op: GatewayResourceOp, { timeout, listMaxBytes }: Bounds): Promise<Result> {
  const o = { timeout };
  if (op.method === "resources/read") return client.readResource({ uri: op.uri }, o);
  if (op.method === "prompts/get") return client.getPrompt({ name: op.name, ...(op.arguments ? { arguments: op.arguments } : {}) }, o);
  const [fn, key] = LISTS[op.method];
  const items: unknown[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  pages: for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client[fn](cursor ? { cursor } : undefined, o);
    for (const item of (r[key] as unknown[] | undefined) ?? []) {
      // the gateway answers one page: a server's items past the result cap are left out
      if ((bytes += byteSize(item)) > listMaxBytes) {
        console.warn(`${op.method}: the server's items are over ${listMaxBytes} bytes; ${items.length} kept`);
        break pages;
      }
      items.push(item);
    }
    cursor = typeof r.nextCursor === "string" ? r.nextCursor : undefined;
    if (!cursor) break;
  }
  return { [key]: items };
}

async function legacy(
  server: ServerConfig,
  headers: Record<string, string>,
  stored: UpstreamSession | null,
  op: GatewayResourceOp,
  bounds: Bounds,
) {
  const { client, transport } = await connect(server, headers, stored, [], bounds.maxBytes);
  try {
    // an answer cut at the read limit on an SSE stream fails the request at once, not at its timeout
    const result = await Promise.race([send(client as unknown as ResourceClient, op, bounds), brokenOff(client)]);
    return { result, session: { sessionId: transport.sessionId ?? "", protocolVersion: transport.protocolVersion ?? "" } };
  } finally {
    await client.close().catch(() => {});
  }
}

async function modern(
  server: ServerConfig,
  headers: Record<string, string>,
  stored: UpstreamSession & { discover: string },
  op: GatewayResourceOp,
  bounds: Bounds,
) {
  const client = new ModernClient(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL } } });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: transportFetch(headers, [], bounds.maxBytes) });
  try {
    await client.connect(transport, {
      timeout: server.timeoutMs,
      prior: { kind: "modern", discover: JSON.parse(stored.discover) as DiscoverResult },
    });
    const result = await Promise.race([send(client as unknown as ResourceClient, op, bounds), brokenOff(client)]);
    return { result, session: stored };
  } finally {
    await client.close().catch(() => {});
  }
}

/** The read limit's own failure, wherever an SDK wrapped it (its cause chain). */
function cutOff(e: unknown): UpstreamFailure | undefined {
  let c: unknown = e;
  for (let i = 0; i < 5 && c instanceof Error; i++, c = c.cause) if (c instanceof UpstreamFailure) return c;
  return undefined;
}

/**
 * Ask `server` for `op` in the stored session (`stored`), or a new one, reading answers to the
 * read limit of `resultMaxBytes`. The session it ended in comes back for the caller to store; a
 * server's JSON-RPC error is an UpstreamError, anything else mcp-client.ts's UpstreamFailure.
 */
export async function requestRemote(
  server: ServerConfig,
  headers: Record<string, string>,
  stored: UpstreamSession | null,
  op: GatewayResourceOp,
  resultMaxBytes: number,
): Promise<{ result: Result; session: UpstreamSession | null }> {
  const bounds = { timeout: server.timeoutMs, maxBytes: readLimit(resultMaxBytes), listMaxBytes: resultMaxBytes };
  const ask = (s: UpstreamSession | null) =>
    s?.discover
      ? modern(server, headers, { ...s, discover: s.discover }, op, bounds)
      : legacy(server, headers, s?.sessionId ? s : null, op, bounds);
  try {
    try {
      return await ask(stored);
    } catch (e) {
      // the server expired its session: it refused the request before running it, so ask again in a new one
      if (!stored?.sessionId || !expired(e)) throw e;
      return await ask(null);
    }
  } catch (e) {
    // a local timeout or a closed connection is the SDK's own McpError: a failure, not the server's answer
    const local = e instanceof McpError && (e.code === ErrorCode.RequestTimeout || e.code === ErrorCode.ConnectionClosed);
    if ((e instanceof McpError && !local) || e instanceof ProtocolError) throw new UpstreamError(e.code, e.message);
    throw cutOff(e) ?? classify(e, server);
  }
}
