// The one execution path: a catalog tool run on its MCP server for a session. Every surface (the
// REST call route, the chat endpoint's edge rounds, the MCP gateway) reaches it through
// SessionDO.callTool, which passes a narrow port (the session's activate and audit, its server
// sessions). In order: the session's access check (a denial is audited), load-if-not-loaded (an
// activation, audited), the argument check against the tool's schema (nothing is sent when it
// fails), the call in the kept-alive server session (check-and-set: the call's await lets other
// requests in), the server's timeout, the result cap, secret redaction, and the call's audit row,
// written in the same transaction as the server session it used. A refusal is a CallOutcome with
// an error code; the session client (client.ts) turns it into the surface's ToolsearchError.

import { notAvailable, sessionAccess } from "../core/access.ts";
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
import { callRemote, closeRemote, UpstreamFailure, type Progress } from "./mcp-client.ts";
import type { ServerSessions } from "./server-sessions.ts";
import type { SessionInit } from "./state.ts";

/** Who is calling: the surface, for the audit trail; `onProgress` (a stub across RPC) asks the server for progress. */
export interface CallContext {
  via: "rest" | "chat" | "mcp";
  onProgress?: (p: Progress) => void;
}

/** A call's outcome; a refusal carries the error a surface reports (the RPC boundary drops classes). */
export type CallOutcome =
  { ok: true; result: CallToolResult; outcome: AuditOutcome } | { ok: false; code: ErrorCode; message: string; outcome?: AuditOutcome };

/** What a call needs of its session: the frozen fields, its activations, audit and server sessions. */
export interface ExecutionPort {
  init: SessionInit;
  activations: readonly string[];
  /** null: the session was deleted meanwhile */
  activate(names: string[], query: string, audit: ActivationAudit): Promise<ActivationResult | null>;
  /** write audit rows in a transaction of their own, or inside `transaction` */
  writeAudit(events: readonly AuditInput[]): void;
  transaction<T>(fn: () => T): T;
  servers: ServerSessions;
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
    argsDigest: digest.argsDigest,
    argsBytes: digest.argsBytes,
    arguments: init.storeArguments ? digest.canonical : null,
  };
  const audit = (e: Omit<AuditInput, "tool">) => port.transaction(() => port.writeAudit([{ ...base, ...e }]));
  const reason = view.denied.get(name);
  if (reason) {
    audit({ type: "denial", outcome: "denied", detail: reason });
    return { ok: false, code: "forbidden", message: notAvailable(name), outcome: "denied" };
  }
  const server = cfg.servers.get(tool.server);
  if (!server) {
    return { ok: false, code: "not_executable", message: `server ${tool.server} has no SERVERS entry: its tools are run by the client` };
  }
  if (!isLoaded({ ...init, activations: port.activations }, name)) {
    // null: the session was deleted meanwhile
    if (!(await port.activate([name], `call:${name}`, { via, load: true }))) return null;
  }
  const check = checkArguments(tool.inputSchema, (args ?? {}) as Record<string, unknown>);
  if (!check.ok) {
    audit({ type: "call", outcome: "invalid_arguments", detail: check.errors.join("; ") });
    const message = `invalid arguments for ${name}: ${check.errors.join("; ")}`;
    return { ok: false, code: "bad_request", message, outcome: "invalid_arguments" };
  }
  const started = Date.now();
  let secrets: string[] = [];
  try {
    const resolved = resolveHeaders(tool.server, server, cfg.secret);
    secrets = resolved.secrets;
    const key = `${init.id}/${tool.server}`;
    let before = port.servers.get(tool.server);
    if (!before && opening.has(key)) {
      await opening.get(key)!.catch(() => {});
      before = port.servers.get(tool.server);
    }
    const pending = callRemote(server, resolved.headers, before, tool.originalName, check.args, context.onProgress);
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
    const kept = port.transaction(() => {
      const kept = port.servers.replace(tool.server, before, remote.session);
      port.writeAudit([{ ...base, type: "call", outcome, durationMs: Date.now() - started, resultBytes: capped.bytes, detail }]);
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

/** Close every server session of a session that ends (HTTP DELETE; failures only logged). */
export async function closeServerSessions(servers: ServerSessions, cfg: Settings, sessionId: string): Promise<void> {
  await Promise.all(
    servers.all().map(async (r) => {
      const server = cfg.servers.get(r.server);
      if (!server) return;
      try {
        const { headers } = resolveHeaders(r.server, server, cfg.secret);
        await closeRemote(server, headers, r);
      } catch (e) {
        console.warn(`session ${sessionId}: closing the ${r.server} MCP session failed: ${(e as Error).message}`);
      }
    }),
  );
}
