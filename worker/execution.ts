// The one execution path: a catalog tool run on its MCP server for a session. Every surface (the
// REST call route, the chat endpoint's edge rounds, the MCP gateway) goes through
// SessionDO.callTool -> executeCall, which does, in order: the session's access check (a denial is
// audited), load-if-not-loaded (an activation, audited), the argument check against the tool's
// schema (nothing is sent when it fails), the call in the kept-alive upstream session (stored
// Mcp-Session-Id, check-and-set: the call's await lets other requests in), the server's timeout,
// the result cap, secret redaction, and the call's audit row, written in the same transaction as
// the upstream session it used. The Worker side turns a refusal into its ToolsearchError.

import { notAvailable, sessionView } from "./core/access.ts";
import { argsDigest, capResult, type CallToolResult } from "./core/call-result.ts";
import type { AuditInput, AuditOutcome } from "./core/audit.ts";
import { ToolsearchError, type ErrorCode } from "./core/errors.ts";
import { closestNames } from "./core/search.ts";
import { redact, resolveHeaders, type ServerConfig } from "./core/servers.ts";
import { checkArguments } from "./core/tool-args.ts";
import { loadCatalog } from "./catalogs.ts";
import { settings } from "./config.ts";
import { callRemote, closeRemote, UpstreamFailure, type UpstreamSession } from "./mcp-upstream.ts";
import type { SessionDO } from "./session.ts";
import type { SessionInit } from "./session-state.ts";

export const UPSTREAM_SCHEMA = `
  CREATE TABLE IF NOT EXISTS upstream (server TEXT PRIMARY KEY, session_id TEXT NOT NULL, protocol TEXT NOT NULL, opened_at INTEGER NOT NULL);`;

/** Who is calling: the surface, for the audit trail. */
export interface CallContext {
  via: "rest" | "chat" | "mcp";
}

/** A call's outcome; a refusal carries the error a surface reports (the RPC boundary drops classes). */
export type CallOutcome =
  { ok: true; result: CallToolResult; outcome: AuditOutcome } | { ok: false; code: ErrorCode; message: string; outcome?: AuditOutcome };

type Row = { session_id: string; protocol: string };

function stored(sql: SqlStorage, server: string): UpstreamSession | null {
  const r = sql.exec<Row>("SELECT session_id, protocol FROM upstream WHERE server = ?", server).toArray()[0];
  return r ? { sessionId: r.session_id, protocolVersion: r.protocol } : null;
}

/**
 * Store the session a call ran in, if it replaces `before` (check-and-set: another call may have
 * stored one meanwhile). True when `after` is (now) the stored session.
 */
function storeSession(sql: SqlStorage, server: string, before: UpstreamSession | null, after: UpstreamSession | null): boolean {
  if (!after || after.sessionId === before?.sessionId) return true;
  const now = Date.now();
  if (before)
    sql.exec(
      "UPDATE upstream SET session_id = ?, protocol = ?, opened_at = ? WHERE server = ? AND session_id = ?",
      after.sessionId,
      after.protocolVersion,
      now,
      server,
      before.sessionId,
    );
  else
    sql.exec(
      "INSERT INTO upstream (server, session_id, protocol, opened_at) VALUES (?, ?, ?, ?) ON CONFLICT (server) DO NOTHING",
      server,
      after.sessionId,
      after.protocolVersion,
      now,
    );
  return stored(sql, server)?.sessionId === after.sessionId;
}

// first opens per (session object, server) in flight: concurrent first calls share one session
const opening = new Map<string, Promise<unknown>>();

export async function executeCall(
  self: SessionDO,
  storage: DurableObjectStorage,
  env: Env,
  init: SessionInit,
  name: string,
  args: unknown,
  context: CallContext,
): Promise<CallOutcome> {
  const cfg = settings(env);
  const cat = await loadCatalog(env.ASSETS, init.catalogFile);
  const tool = cat.byName.get(name);
  const view = sessionView(cat.tools, init);
  if (!tool)
    return {
      ok: false,
      code: "not_found",
      message: `there is no tool ${name.slice(0, 80)} in this session's catalog; closest names: ${closestNames(cat, name, 3, view.candidates).join(", ")}`,
    };
  const via = context.via;
  const digest = await argsDigest(args);
  const base = {
    tool: name,
    server: tool.server,
    via,
    argsDigest: digest.argsDigest,
    argsBytes: digest.argsBytes,
    arguments: init.storeArguments ? digest.canonical : null,
  };
  const audit = (e: Omit<AuditInput, "tool">) => storage.transactionSync(() => self.writeAudit(init, [{ ...base, ...e }]));
  const reason = view.denied.get(name);
  if (reason) {
    audit({ type: "denial", outcome: "denied", detail: reason });
    return { ok: false, code: "forbidden", message: notAvailable(name), outcome: "denied" };
  }
  const server = cfg.servers.get(tool.server);
  if (!server)
    return { ok: false, code: "not_executable", message: `server ${tool.server} has no SERVERS entry: its tools are run by the client` };
  const loaded =
    init.mode === "full" ||
    init.coreTools.includes(name) ||
    storage.sql.exec("SELECT 1 FROM activations WHERE name = ?", name).toArray().length > 0;
  if (!loaded && !(await self.activate([name], `call:${name}`, { via, load: true })))
    return { ok: false, code: "not_found", message: "the session does not exist" };
  const check = checkArguments(tool.inputSchema, (args ?? {}) as Record<string, unknown>);
  if (!check.ok) {
    audit({ type: "call", outcome: "invalid_arguments", detail: check.errors.join("; ") });
    return {
      ok: false,
      code: "bad_request",
      message: `invalid arguments for ${name}: ${check.errors.join("; ")}`,
      outcome: "invalid_arguments",
    };
  }
  const started = Date.now();
  let secrets: string[] = [];
  try {
    const resolved = resolveHeaders(tool.server, server, (n) => (env as unknown as Record<string, unknown>)[n]);
    secrets = resolved.secrets;
    const key = `${init.id}/${tool.server}`;
    let before = stored(storage.sql, tool.server);
    if (!before && opening.has(key)) {
      await opening.get(key)!.catch(() => {});
      before = stored(storage.sql, tool.server);
    }
    const pending = callRemote(server, resolved.headers, before, tool.originalName, check.args);
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
    const detail =
      [capped.capped ? "result capped" : "", remote.reinitialized ? "upstream session re-initialized" : ""].filter(Boolean).join("; ") ||
      null;
    const kept = storage.transactionSync(() => {
      const kept = storeSession(storage.sql, tool.server, before, remote.session);
      self.writeAudit(init, [{ ...base, type: "call", outcome, durationMs: Date.now() - started, resultBytes: capped.bytes, detail }]);
      return kept;
    });
    // another call stored its session first: ours would never be used again
    if (!kept && remote.session) await closeRemote(server, resolved.headers, remote.session).catch(() => {});
    return { ok: true, result, outcome };
  } catch (e) {
    const failure =
      e instanceof UpstreamFailure
        ? e
        : e instanceof ToolsearchError
          ? null
          : new UpstreamFailure("transport_error", String((e as Error)?.message ?? e));
    const message = redact(failure ? failure.message : (e as Error).message, secrets);
    const outcome: AuditOutcome = failure?.kind ?? "transport_error";
    audit({ type: "call", outcome, durationMs: Date.now() - started, detail: message });
    if (!failure) return { ok: false, code: (e as ToolsearchError).code, message, outcome };
    const what =
      failure.kind === "timeout"
        ? `server ${tool.server} did not answer ${name} within ${server.timeoutMs} ms`
        : `server ${tool.server} failed on ${name}: ${message}`;
    return { ok: false, code: failure.kind === "timeout" ? "upstream_timeout" : "server_failed", message: what, outcome };
  }
}

/** Close every upstream session of a session that ends (HTTP DELETE; failures only logged). */
export async function closeUpstreamSessions(sql: SqlStorage, env: Env, init: Pick<SessionInit, "id">): Promise<void> {
  const rows = sql.exec<Row & { server: string }>("SELECT server, session_id, protocol FROM upstream").toArray();
  if (!rows.length) return;
  const servers = settings(env).servers;
  await Promise.all(
    rows.map(async (r) => {
      const server: ServerConfig | undefined = servers.get(r.server);
      if (!server) return;
      try {
        const { headers } = resolveHeaders(r.server, server, (n) => (env as unknown as Record<string, unknown>)[n]);
        await closeRemote(server, headers, { sessionId: r.session_id, protocolVersion: r.protocol });
      } catch (e) {
        console.warn(`session ${init.id}: closing the ${r.server} MCP session failed: ${(e as Error).message}`);
      }
    }),
  );
}

/** The Worker side: a call's result, or the coded error of its refusal. */
export function resultOf(outcome: CallOutcome): CallToolResult {
  if (outcome.ok) return outcome.result;
  throw new ToolsearchError(outcome.code, outcome.message);
}
