// The one execution path: a catalog tool run on its MCP server for a session. Every surface (the
// REST call route, the chat endpoint's edge rounds, the MCP gateway) reaches it through
// SessionDO.callTool, which passes a narrow port (call-port.ts: the session's activate and audit,
// its server sessions). In order: the session's tool gate (core/gate.ts; a denial is audited),
// load-if-not-loaded (an activation, audited), the argument check against the tool's schema
// (nothing is sent when it fails), a person's yes where POLICY.approval asks for one
// (approval-step.ts), the credentials (a connect link, or for a principal with no
// user what to send: nothing is sent), one unit of the key's quota of upstream calls (refused:
// audited `rate_limited`, nothing sent), the call in the kept-alive server session (check-and-set:
// the call's await lets other requests in), the server's timeout (the server is sent
// notifications/cancelled), the result cap, secret redaction (call-end.ts: how a call that was
// sent ends). The call's audit row is written ahead (`started`, in the transaction that picks the
// server session) and completed with the outcome in the transaction that stores the server
// session it ended in. A refusal is a CallOutcome with an error code; the session client
// (client.ts) turns it into the surface's ToolsearchError.

import { notAvailable, sessionAccess } from "../core/access.ts";
import type { AuditInput } from "../core/audit.ts";
import { argsDigest, readLimit } from "../core/call-result.ts";
import type { CatalogTool } from "../core/catalog.ts";
import { RateLimited, ToolsearchError } from "../core/errors.ts";
import { isLoaded } from "../core/frozen.ts";
import { closestNames } from "../core/search.ts";
import { redact, type ServerConfig } from "../core/servers.ts";
import { checkArguments } from "../core/tool-args.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import type { Settings } from "../settings.ts";
import { answered, failed, type CallOutcome, type SentCall } from "./call-end.ts";
import type { CallContext, ExecutionPort } from "./call-port.ts";
import { callAsUser, connectResult, credentialsFor, NeedsConnection, NeedsUser, needsUserResult, type Credentials } from "./credentials.ts";
import { callRemote, type Progress } from "./mcp-client.ts";
import { approvalStep } from "./approval-step.ts";

export type { CallOutcome } from "./call-end.ts";
export type { CallContext, ExecutionPort } from "./call-port.ts";

// first opens per (session, server) in flight: concurrent first calls share one server session
const opening = new Map<string, Promise<unknown>>();

/** A step's stop: the call ends here with this outcome (null: the session was deleted meanwhile). */
type Stop = { stop: CallOutcome | null };

/** A call of a catalog tool as the steps below see it: the tool, and the fields of each of its audit rows. */
interface Call {
  name: string;
  tool: CatalogTool;
  args: unknown;
  context: CallContext;
  base: Omit<AuditInput, "type" | "outcome">;
}

/** A call that may be sent: its server's SERVERS entry and its checked arguments. */
type Admitted = { server: ServerConfig; args: Record<string, unknown> };

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
  const digest = await argsDigest(args);
  const base: Call["base"] = {
    tool: name,
    server: tool.server,
    via: context.via,
    client: context.client ?? null,
    run: context.run ?? null,
    argsDigest: digest.argsDigest,
    argsBytes: digest.argsBytes,
    arguments: init.storeArguments ? digest.canonical : null,
  };
  const call: Call = { name, tool, args, context, base };
  const admitted = await admit(port, cfg, call, did);
  if ("stop" in admitted) return admitted.stop;
  const waits = await approvalStep(port, cfg, { name, server: tool.server, args: admitted.args, origin: context.origin ?? "", base });
  if (waits) return waits;
  const creds = await credentials(port, cfg, call, admitted.server);
  if ("stop" in creds) return creds.stop;
  const refused = await counted(port, call);
  if (refused) return refused.stop;
  return send(port, cfg, call, admitted, creds);
}

/** The call against the key's quota of upstream calls: refused, it is audited and nothing is sent. */
async function counted(port: ExecutionPort, call: Call): Promise<Stop | null> {
  try {
    await port.upstream(call.context);
  } catch (e) {
    if (!(e instanceof RateLimited)) throw e;
    audit(port, call, { type: "call", outcome: "rate_limited", detail: e.message });
    return { stop: { ok: false, code: "rate_limited", message: e.message, retryAfter: e.retryAfter, outcome: "rate_limited" } };
  }
  return null;
}

/** Write one audit row of the call, in a transaction of its own. */
function audit(port: ExecutionPort, call: Call, e: Omit<AuditInput, "tool">): void {
  port.transaction(() => port.writeAudit([{ ...call.base, ...e }]));
}

/** What refuses a call before anything is sent: the gate, SERVERS, load-if-not-loaded, the arguments. */
async function admit(port: ExecutionPort, cfg: Settings, call: Call, did: { load: boolean }): Promise<Stop | Admitted> {
  const { name, tool, context } = call;
  const reason = port.gate(name);
  if (reason) {
    audit(port, call, { type: "denial", outcome: "denied", detail: reason });
    return { stop: { ok: false, code: "forbidden", message: notAvailable(name), outcome: "denied" } };
  }
  // a malformed SERVERS: the call cannot run, and the message says why (an error does not cross the object's RPC intact)
  if (cfg.serversProblem) return { stop: { ok: false, code: "internal", message: cfg.serversProblem } };
  const server = cfg.servers.get(tool.server);
  if (!server) {
    const message = `server ${tool.server} has no SERVERS entry: its tools are run by the client`;
    return { stop: { ok: false, code: "not_executable", message } };
  }
  if (!isLoaded({ ...port.init, activations: port.activations }, name)) {
    // null: the session was deleted meanwhile
    const activated = await port.activate([name], `call:${name}`, { via: context.via, client: context.client, load: true });
    if (!activated) return { stop: null };
    did.load = activated.loaded.includes(name);
  }
  const check = checkArguments(tool.inputSchema, (call.args ?? {}) as Record<string, unknown>);
  if (!check.ok) {
    audit(port, call, { type: "call", outcome: "invalid_arguments", detail: check.errors.join("; ") });
    const message = `invalid arguments for ${name}: ${check.errors.join("; ")}`;
    return { stop: { ok: false, code: "bad_request", message, outcome: "invalid_arguments" } };
  }
  return { server, args: check.args };
}

/** The credentials the call is sent with; or, nothing sent, a connect link or why there are none. */
async function credentials(port: ExecutionPort, cfg: Settings, call: Call, server: ServerConfig): Promise<Stop | Credentials> {
  const serverName = call.tool.server;
  try {
    return await credentialsFor(serverName, server, cfg, port.accounts, call.context.origin ?? "");
  } catch (e) {
    if (e instanceof NeedsUser) {
      audit(port, call, { type: "call", outcome: "needs_user", detail: "the session's principal names no user: answered what to send" });
      return { stop: { ok: true, result: needsUserResult(e), outcome: "needs_user" } };
    }
    if (e instanceof NeedsConnection) {
      const detail = "the user has not connected this server: answered a connect link";
      audit(port, call, { type: "call", outcome: "needs_connection", detail });
      return { stop: { ok: true, result: connectResult(serverName, e.link), outcome: "needs_connection" } };
    }
    // the deployment's configuration (a secret not set), or a token refresh that failed: nothing was sent
    const message = (e as Error).message;
    if (!(e instanceof ToolsearchError)) {
      audit(port, call, { type: "call", outcome: "transport_error", detail: message });
      return { stop: { ok: false, code: "server_failed", message, outcome: "transport_error" } };
    }
    audit(port, call, { type: "call", outcome: "config_error", detail: message });
    return { stop: { ok: false, code: e.code, message, outcome: "config_error" } };
  }
}

/** Send the call in its server's kept-alive session, written ahead; call-end.ts records how it ended. */
async function send(
  port: ExecutionPort,
  cfg: Settings,
  { name, tool, context, base }: Call,
  { server, args }: Admitted,
  creds: Credentials,
): Promise<CallOutcome> {
  let resolved = creds;
  const key = `${port.init.id}/${tool.server}`;
  if (opening.has(key) && !port.servers.get(tool.server)) await opening.get(key)!.catch(() => {});
  // write-ahead: the call's row (`started`) in the transaction that reads the session it goes to;
  // nothing is sent before it commits, so no call can run upstream without a row
  const { before, row } = port.transaction(() => ({
    before: port.servers.get(tool.server),
    row: port.begin({ ...base, type: "call" }, context.key),
  }));
  const sent: SentCall = { name, server: tool.server, config: server, before, row, startedAt: Date.now() };
  try {
    // progress messages leave through /mcp's notifications/progress: redacted like the result (M4)
    const progress = context.onProgress;
    const onProgress =
      progress && ((p: Progress) => progress(p.message === undefined ? p : { ...p, message: redact(p.message, resolved.secrets) }));
    // what is read of an answer is bounded too (M6): the cap (call-end.ts) applies to what was read
    const maxBytes = readLimit(cfg.resultMaxBytes);
    const request = { tool: tool.originalName, args, signal: row.signal, onProgress, maxBytes };
    const pending = callAsUser(tool.server, server, resolved, port.accounts, context.origin ?? "", (c) => {
      resolved = c;
      return callRemote(server, c.headers, before, request);
    });
    if (!before)
      opening.set(
        key,
        pending.finally(() => opening.delete(key)).catch(() => {}),
      );
    const remote = await pending;
    return await answered(port, sent, remote, resolved, cfg.resultMaxBytes);
  } catch (e) {
    return failed(port, sent, e, resolved.secrets);
  }
}
