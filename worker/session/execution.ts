// The one execution path: a catalog tool run on its MCP server for a session. Every surface (the
// REST call route, the chat endpoint's edge rounds, the MCP gateway) reaches it through
// SessionDO.callTool, which passes a narrow port (the session's activate and audit, its server
// sessions). In order: the session's tool gate (core/gate.ts; a denial is audited), load-if-not-loaded (an
// activation, audited), the argument check against the tool's schema (nothing is sent when it
// fails), the call in the kept-alive server session (check-and-set: the call's await lets other
// requests in), the server's timeout (the server is sent notifications/cancelled), the result
// cap, secret redaction. The call's audit row is written ahead (`started`, in the transaction
// that picks the server session) and completed with the outcome in the transaction that stores
// the server session it ended in. A refusal is a CallOutcome with an error code; the session
// client (client.ts) turns it into the surface's ToolsearchError.

import { notAvailable, sessionAccess } from "../core/access.ts";
import type { Gate } from "../core/gate.ts";
import type { AuditInput, AuditOutcome } from "../core/audit.ts";
import { argsDigest, capResult, type CallToolResult } from "../core/call-result.ts";
import { ToolsearchError, type ErrorCode } from "../core/errors.ts";
import { isLoaded } from "../core/frozen.ts";
import { closestNames } from "../core/search.ts";
import { redact, resolveHeaders } from "../core/servers.ts";
import { checkArguments } from "../core/tool-args.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import type { Settings } from "../settings.ts";
import { callAsUser, connectResult, credentialsFor, NeedsConnection, type Credentials } from "./credentials.ts";
import { callRemote, closeRemote, type Progress } from "./mcp-client.ts";
import { UpstreamFailure } from "./upstream-failure.ts";
import type { ServerSessions } from "./server-sessions.ts";
import type { Accounts } from "./token-cache.ts";
import type { SessionInit } from "./state.ts";

/** the least a call's answer may be read to, whatever the result cap: the cap cuts results read whole up to here */
const READ_MIN_BYTES = 4 * 1024 * 1024;

/**
 * Who is calling: the surface and the client program it names (MCP clientInfo), for the audit
 * trail; `onProgress` (a stub across RPC) asks the server for progress.
 */
export interface CallContext {
  via: "rest" | "chat" | "mcp";
  client?: string;
  onProgress?: (p: Progress) => void;
  /** names the call for SessionClient.cancel (an AbortSignal does not cross the object's RPC) */
  key?: string;
  /** the Worker's origin as the caller reached it: connect links point there (SessionClient sets it) */
  origin?: string;
}

/**
 * A call's outcome; a refusal carries the error a surface reports (the RPC boundary drops classes).
 * `loaded`: the call activated its tool (a surface whose tools list shows loaded tools has grown).
 */
export type CallOutcome = (
  { ok: true; result: CallToolResult; outcome: AuditOutcome } | { ok: false; code: ErrorCode; message: string; outcome?: AuditOutcome }
) & { loaded?: true };

/** How a started call ended: its row's outcome and figures. */
export interface CallEnd {
  outcome: AuditOutcome;
  durationMs: number;
  resultBytes?: number;
  detail?: string | null;
}

/** What a call needs of its session: the frozen fields, its activations, audit and server sessions. */
export interface ExecutionPort {
  init: SessionInit;
  activations: readonly string[];
  /** the session's one tool gate (core/gate.ts): why the tool may not run, or undefined */
  gate: Gate;
  /** null: the session was deleted meanwhile */
  activate(names: string[], query: string, audit: ActivationAudit): Promise<ActivationResult | null>;
  /** write audit rows in a transaction of their own, or inside `transaction` */
  writeAudit(events: readonly AuditInput[]): void;
  /**
   * Write-ahead: a call's row with outcome `started` (inside `transaction`). `signal` aborts when
   * the call must stop (cancelled by `key`, or the session is deleted); `end` completes the row.
   */
  begin(event: Omit<AuditInput, "outcome">, key?: string): { signal: AbortSignal; end(update: CallEnd): void };
  transaction<T>(fn: () => T): T;
  servers: ServerSessions;
  /** the session principal's upstream accounts (servers with "auth": "oauth") */
  accounts: Accounts;
}

// first opens per (session, server) in flight: concurrent first calls share one server session
const opening = new Map<string, Promise<unknown>>();

export async function executeCall(
  port: ExecutionPort,
  deps: { settings: Settings; catalog: LoadedCatalog },
  name: string,
  args: unknown,
  context: CallContext,
): Promise<CallOutcome | null> {
  const did = { load: false };
  const outcome = await runCall(port, deps, name, args, context, did);
  return outcome && did.load ? { ...outcome, loaded: true } : outcome;
}

async function runCall(
  port: ExecutionPort,
  deps: { settings: Settings; catalog: LoadedCatalog },
  name: string,
  args: unknown,
  context: CallContext,
  did: { load: boolean },
): Promise<CallOutcome | null> {
  const { init } = port;
  const { settings: cfg, catalog: cat } = deps;
  const tool = cat.byName.get(name);
  const view = sessionAccess(cat.tools, init);
  if (!tool) {
    const closest = closestNames(cat, name, 3, view.candidates).join(", ");
    return {
      ok: false,
      code: "not_found",
      message: `there is no tool ${name.slice(0, 80)} in this session's catalog; closest names: ${closest}`,
    };
  }
  const via = context.via;
  const digest = await argsDigest(args);
  const base = {
    tool: name,
    server: tool.server,
    via,
    client: context.client ?? null,
    argsDigest: digest.argsDigest,
    argsBytes: digest.argsBytes,
    arguments: init.storeArguments ? digest.canonical : null,
  };
  const audit = (e: Omit<AuditInput, "tool">) => port.transaction(() => port.writeAudit([{ ...base, ...e }]));
  const reason = port.gate(name);
  if (reason) {
    audit({ type: "denial", outcome: "denied", detail: reason });
    return { ok: false, code: "forbidden", message: notAvailable(name), outcome: "denied" };
  }
  // a malformed SERVERS: the call cannot run, and the message says why (an error does not cross the object's RPC intact)
  if (cfg.serversProblem) return { ok: false, code: "internal", message: cfg.serversProblem };
  const server = cfg.servers.get(tool.server);
  if (!server) {
    return { ok: false, code: "not_executable", message: `server ${tool.server} has no SERVERS entry: its tools are run by the client` };
  }
  if (!isLoaded({ ...init, activations: port.activations }, name)) {
    // null: the session was deleted meanwhile
    const activated = await port.activate([name], `call:${name}`, { via, client: context.client, load: true });
    if (!activated) return null;
    did.load = activated.loaded.includes(name);
  }
  const check = checkArguments(tool.inputSchema, (args ?? {}) as Record<string, unknown>);
  if (!check.ok) {
    audit({ type: "call", outcome: "invalid_arguments", detail: check.errors.join("; ") });
    const message = `invalid arguments for ${name}: ${check.errors.join("; ")}`;
    return { ok: false, code: "bad_request", message, outcome: "invalid_arguments" };
  }
  const origin = context.origin ?? "";
  let resolved: Credentials;
  try {
    resolved = await credentialsFor(tool.server, server, cfg, port.accounts, origin);
  } catch (e) {
    if (e instanceof NeedsConnection) {
      audit({ type: "call", outcome: "needs_connection", detail: "the user has not connected this server: answered a connect link" });
      return { ok: true, result: connectResult(tool.server, e.link), outcome: "needs_connection" };
    }
    // the deployment's configuration (a secret not set), or a token refresh that failed: nothing was sent
    const message = (e as Error).message;
    if (!(e instanceof ToolsearchError)) {
      audit({ type: "call", outcome: "transport_error", detail: message });
      return { ok: false, code: "server_failed", message, outcome: "transport_error" };
    }
    audit({ type: "call", outcome: "config_error", detail: message });
    return { ok: false, code: e.code, message, outcome: "config_error" };
  }
  let secrets = resolved.secrets;
  const key = `${init.id}/${tool.server}`;
  if (!port.servers.get(tool.server) && opening.has(key)) await opening.get(key)!.catch(() => {});
  // write-ahead: the call's row (`started`) in the transaction that reads the session it goes to;
  // nothing is sent before it commits, so no call can run upstream without a row
  const { before, call } = port.transaction(() => ({
    before: port.servers.get(tool.server),
    call: port.begin({ ...base, type: "call" }, context.key),
  }));
  const startedAt = Date.now();
  try {
    // progress messages leave through /mcp's notifications/progress: redacted like the result (M4)
    const progress = context.onProgress;
    const onProgress = progress && ((p: Progress) => progress(p.message === undefined ? p : { ...p, message: redact(p.message, secrets) }));
    // what is read of an answer is bounded too (M6): the cap below applies to what was read
    const maxBytes = Math.max(4 * cfg.resultMaxBytes, READ_MIN_BYTES);
    const request = { tool: tool.originalName, args: check.args, signal: call.signal, onProgress, maxBytes };
    const pending = callAsUser(tool.server, server, resolved, port.accounts, origin, (c) => {
      secrets = c.secrets;
      resolved = c;
      return callRemote(server, c.headers, before, request);
    });
    if (!before)
      opening.set(
        key,
        pending.finally(() => opening.delete(key)).catch(() => {}),
      );
    const remote = await pending;
    const capped = capResult(JSON.parse(redact(JSON.stringify(remote.result), secrets)) as CallToolResult, cfg.resultMaxBytes);
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
      const kept = port.servers.replace(tool.server, before, remote.session);
      call.end({
        outcome,
        durationMs: Date.now() - startedAt,
        resultBytes: capped.bytes,
        detail: notes.filter(Boolean).join("; ") || null,
      });
      return kept;
    });
    // another call stored its session first: ours would never be used again
    if (!kept && remote.session) await closeRemote(server, resolved.headers, remote.session).catch(() => {});
    return { ok: true, result, outcome };
  } catch (e) {
    if (e instanceof NeedsConnection) {
      const detail = "the server refused the user's token after a refresh: the connection was dropped; answered a connect link";
      port.transaction(() => call.end({ outcome: "needs_connection", durationMs: Date.now() - startedAt, detail }));
      return { ok: true, result: connectResult(tool.server, e.link), outcome: "needs_connection" };
    }
    const failure = e instanceof UpstreamFailure ? e : new UpstreamFailure("transport_error", String((e as Error)?.message ?? e));
    const message = redact(failure.message, secrets);
    const outcome: AuditOutcome = failure.kind === "unauthorized" ? "transport_error" : failure.kind;
    port.transaction(() => call.end({ outcome, durationMs: Date.now() - startedAt, detail: message }));
    // cancelled: by a deletion of the session (its answer is the 404), or by the client, which no longer waits for one
    const what =
      failure.kind === "timeout"
        ? `server ${tool.server} did not answer ${name} within ${server.timeoutMs} ms; the request was cancelled on the server`
        : failure.kind === "cancelled"
          ? `the call of ${name} on server ${tool.server} was cancelled (${message}); the server was sent notifications/cancelled`
          : `server ${tool.server} failed on ${name}: ${message}`;
    const code: ErrorCode = failure.kind === "timeout" ? "upstream_timeout" : failure.kind === "cancelled" ? "not_found" : "server_failed";
    return { ok: false, code, message: what, outcome };
  }
}

const RECONNECTED = "reconnected: the server did not know its MCP session (expired or restarted); a new one ran the call";

/** Close every server session of a session that ends (HTTP DELETE; failures only logged). */
export async function closeServerSessions(servers: ServerSessions, cfg: Settings, sessionId: string): Promise<void> {
  await Promise.all(
    servers.all().map(async (r) => {
      const server = cfg.servers.get(r.server);
      // a server of per-user tokens: no token is fetched to end a session; the server expires it
      if (!server || server.oauth) return;
      try {
        const { headers } = resolveHeaders(r.server, server, cfg.secret);
        await closeRemote(server, headers, r);
      } catch (e) {
        console.warn(`session ${sessionId}: closing the ${r.server} MCP session failed: ${(e as Error).message}`);
      }
    }),
  );
}
