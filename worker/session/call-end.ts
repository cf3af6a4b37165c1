// How a call that was written ahead ends (execution.ts sends it). An answer is redacted of the
// call's secrets and cut at the result cap; the server session it ran in is stored and its row
// completed in one transaction, and a server session another call stored first is closed. A
// failure is named for the row (upstream-failure.ts: timeout, cancelled, transport_error) and
// told to the surface as an error code and a message; a token the server still refused after a
// refresh answers a connect link instead.

import type { AuditOutcome } from "../core/audit.ts";
import { capResult, type CallToolResult } from "../core/call-result.ts";
import type { ErrorCode } from "../core/errors.ts";
import { redact, type ServerConfig } from "../core/servers.ts";
import { connectResult, NeedsConnection, type Credentials } from "./credentials.ts";
import { closeRemote, type RemoteCall, type UpstreamSession } from "./mcp-client.ts";
import type { ServerSessions } from "./server-sessions.ts";
import { UpstreamFailure } from "./upstream-failure.ts";

/**
 * A call's outcome; a refusal carries the error a surface reports (the RPC boundary drops classes),
 * and a quota's refusal (`rate_limited`) the seconds until its window ends. `loaded`: the call
 * activated its tool (a surface whose tools list shows loaded tools has grown).
 */
export type CallOutcome = (
  | { ok: true; result: CallToolResult; outcome: AuditOutcome; approval?: ApprovalAsked }
  | { ok: false; code: ErrorCode; message: string; outcome?: AuditOutcome; retryAfter?: number }
) & { loaded?: true };

/** A call that waits for a person's yes (nothing was sent): its approval, for the surfaces that ask in their own shape. */
export interface ApprovalAsked {
  id: string;
  status: "pending" | "denied";
  link: string;
  expiresAt: string;
  tool: string;
  server: string;
  arguments: string;
}

/** How a started call ended: its row's outcome and figures. */
export interface CallEnd {
  outcome: AuditOutcome;
  durationMs: number;
  resultBytes?: number;
  detail?: string | null;
}

/** A call sent upstream: its tool, its server, the server session it went in, and its row (`started` at `startedAt`). */
export interface SentCall {
  name: string;
  server: string;
  config: ServerConfig;
  before: UpstreamSession | null;
  row: { end(update: CallEnd): void };
  startedAt: number;
}

/** What the end of a call needs of its session: a transaction, and its server sessions. */
export interface EndPort {
  transaction<T>(fn: () => T): T;
  servers: ServerSessions;
}

const RECONNECTED = "reconnected: the server did not know its MCP session (expired or restarted); a new one ran the call";

/** The server answered: the result redacted and capped, its server session kept with the row completed. */
export async function answered(
  port: EndPort,
  sent: SentCall,
  remote: RemoteCall,
  creds: Credentials,
  resultMaxBytes: number,
): Promise<CallOutcome> {
  const capped = capResult(JSON.parse(redact(JSON.stringify(remote.result), creds.secrets)) as CallToolResult, resultMaxBytes);
  const result = capped.result;
  if (remote.reinitialized) {
    result.content.push({
      type: "text",
      text: `[toolsearch: the server had ended this session's MCP session; a new one was started, so state the server kept for it may be gone]`,
    });
  }
  const outcome: AuditOutcome = result.isError ? "tool_error" : "ok";
  const notes = [capped.capped ? "result capped" : "", remote.reinitialized ? RECONNECTED : ""];
  const kept = port.transaction(() => {
    const kept = port.servers.replace(sent.server, sent.before, remote.session);
    sent.row.end({
      outcome,
      durationMs: Date.now() - sent.startedAt,
      resultBytes: capped.bytes,
      detail: notes.filter(Boolean).join("; ") || null,
    });
    return kept;
  });
  // another call stored its session first: ours would never be used again
  if (!kept && remote.session) await closeRemote(sent.config, creds.headers, remote.session).catch(() => {});
  return { ok: true, result, outcome };
}

/** The call failed (or the user must connect again): its row completed, and what the surface is told. */
export function failed(port: EndPort, sent: SentCall, e: unknown, secrets: string[]): CallOutcome {
  const { name, server } = sent;
  if (e instanceof NeedsConnection) {
    const detail = "the server refused the user's token after a refresh: the connection was dropped; answered a connect link";
    port.transaction(() => sent.row.end({ outcome: "needs_connection", durationMs: Date.now() - sent.startedAt, detail }));
    return { ok: true, result: connectResult(server, e.link), outcome: "needs_connection" };
  }
  const failure = e instanceof UpstreamFailure ? e : new UpstreamFailure("transport_error", String((e as Error)?.message ?? e));
  const message = redact(failure.message, secrets);
  const outcome: AuditOutcome = failure.kind === "unauthorized" ? "transport_error" : failure.kind;
  port.transaction(() => sent.row.end({ outcome, durationMs: Date.now() - sent.startedAt, detail: message }));
  // cancelled: by a deletion of the session (its answer is the 404), or by the client, which no longer waits for one
  const what =
    failure.kind === "timeout"
      ? `server ${server} did not answer ${name} within ${sent.config.timeoutMs} ms; the request was cancelled on the server`
      : failure.kind === "cancelled"
        ? `the call of ${name} on server ${server} was cancelled (${message}); the server was sent notifications/cancelled`
        : `server ${server} failed on ${name}: ${message}`;
  const code: ErrorCode = failure.kind === "timeout" ? "upstream_timeout" : failure.kind === "cancelled" ? "not_found" : "server_failed";
  return { ok: false, code, message: what, outcome };
}
