// How a call to an upstream MCP server failed, as the execution path and the audit trail name it:
// `timeout`, `transport_error`, `cancelled`, or `unauthorized` (a 401: session/credentials.ts
// refreshes a per-user token once). classify() turns whatever the SDK threw into one of these;
// expired() tells a server's "I do not know that session" from every other failure.

import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../core/servers.ts";

/** `unauthorized`: the server answered 401 (the credentials sent were refused) */
export type FailureKind = "timeout" | "transport_error" | "cancelled" | "unauthorized";

export class UpstreamFailure extends Error {
  readonly kind: FailureKind;
  constructor(kind: FailureKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

export function classify(e: unknown, server: ServerConfig, signal?: AbortSignal): UpstreamFailure {
  if (e instanceof UpstreamFailure) return e;
  if (signal?.aborted)
    return new UpstreamFailure("cancelled", `cancelled: ${String(signal.reason?.message ?? signal.reason).slice(0, 200)}`);
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout)
    return new UpstreamFailure("timeout", `no answer within ${server.timeoutMs} ms`);
  const msg = e instanceof Error ? e.message : String(e);
  const status = e instanceof StreamableHTTPError && e.code && e.code > 0 ? `HTTP ${e.code}: ` : "";
  return new UpstreamFailure("transport_error", `${status}${msg.replace(/^Streamable HTTP error: /, "")}`.slice(0, 300));
}

// What servers answer for a session they do not know (expired, or lost in a restart): 404 (the
// spec's word), 400 with the SDK servers' bodies (server-everything: "No valid session ID
// provided"), or a JSON-RPC -32001 "Session not found". -32001 is also the SDK's own code for a
// local timeout ("Request timed out"), so only an answer that names the session counts.
const GONE = /No valid session ID|Session not found|"code"\s*:\s*-32001/i;
export function expired(e: unknown): boolean {
  if (e instanceof McpError) return e.code === -32001 && /session/i.test(e.message);
  if (!(e instanceof StreamableHTTPError)) return false;
  return e.code === 404 || (e.code === 400 && GONE.test(e.message));
}
