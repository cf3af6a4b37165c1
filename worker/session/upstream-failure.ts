// How a call to an upstream MCP server failed, as the execution path and the audit trail name it:
// `timeout`, `transport_error`, `cancelled`, or `unauthorized` (a 401: session/credentials.ts
// refreshes a per-user token once). classify() turns whatever the SDK threw into one of these;
// expired() tells a server's "I do not know that session" from every other failure; brokenOff()
// fails a request whose response stream broke off (cut at the read limit too) at once.

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

/** A request that got no answer at all: refused, reset or unresolvable before any response came. */
export class NoResponse extends UpstreamFailure {}

/**
 * Rejects when an SDK client (v1 or v2) reports a broken response stream, one cut at the read
 * limit too: both report it through onerror while the request waits for its timeout, so a
 * request raced against this fails at once. A request that got no response rejects by itself.
 */
export function brokenOff(client: { onerror?: (error: Error) => void }): Promise<never> {
  const broken = new Promise<never>((_, reject) => {
    client.onerror = (err) => {
      if (!(err instanceof NoResponse) && /SSE stream disconnected|terminated|network|socket/i.test(String(err?.message ?? err)))
        reject(new UpstreamFailure("transport_error", `the server's response broke off: ${String(err?.message ?? err).slice(0, 200)}`));
    };
  });
  broken.catch(() => {}); // may reject after the request settled: nobody waits then
  return broken;
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
