// SessionDO: one Durable Object per session, SQLite storage: the session's own tables
// (session-store.ts: frozen fields, activations, event log, splices), stored Responses, the
// kept-alive upstream MCP sessions, and the audit rows, written in the same transaction as the
// state they describe (undelivered rows are the outbox to D1). State changes use synchronous
// ctx.storage.sql in transactions, so concurrent calls cannot lose or duplicate an activation.
// The gate, activations, calls (written ahead: calls-in-flight.ts) and the gateway's resources are
// tool-use.ts; cancel(key) aborts the calls a caller named. When the storage goes (the one alarm,
// expiry, deletion, retention) is lifecycle.ts. Objects named
// `principal:<tenant>/<user>` (a user's upstream accounts), `approvals:<tenant>/<user>` (a
// principal's requests for a yes) and `quota:<tenant>/<key id>` (an API key's counter) play other
// roles of the class: principal(), approvals(), quota().

import { DurableObject } from "cloudflare:workers";
import { PrincipalRole } from "../accounts/principal-role.ts";
import { ApprovalRole } from "../approvals/approval-role.ts";
import type { AuditInput, AuditQuery } from "../core/audit.ts";
import type { ClientPlan } from "../core/client-tools.ts";
import type { ResponseObject } from "../responses/shapes.ts";
import type { Splice } from "../core/splice.ts";
import type { GatewayResourceOp, ResourceOutcome } from "../core/mcp-resources.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import type { LiveRules } from "../core/gate.ts";
import { settings } from "../settings.ts";
import { listSessionAudit, Outbox, workerCalls } from "./audit-store.ts";
import { QuotaRole } from "./quota-role.ts";
import { SessionAlarm } from "./alarm.ts";
import { CallsInFlight } from "./calls-in-flight.ts";
import type { CallContext, CallOutcome } from "./execution.ts";
import { ResourceLinks } from "./resource-gate.ts";
import { ToolUse } from "./tool-use.ts";
import { ResponseStore, type ResponseThread, type StoredResponse } from "./response-store.ts";
import { SessionLifecycle } from "./lifecycle.ts";
import { ServerSessions } from "./server-sessions.ts";
import { TokenCache } from "./token-cache.ts";
import { SessionStore } from "./session-store.ts";
import type { SessionHistory, SessionInit, SessionState } from "./state.ts";

export class SessionDO extends DurableObject<Env> {
  private readonly sql = this.ctx.storage.sql;
  /** the tenant in the object's name (`<tenant>/<id>`): its quotas hold here */
  private readonly tenant = this.ctx.id.name?.split("/")[0] ?? "";
  private readonly store: SessionStore = new SessionStore(this.sql, () => this.life.hasSchema, this.tenant);
  private readonly quotas = () => settings(this.env).quotas.forTenant(this.tenant);
  private readonly servers = new ServerSessions(this.sql);
  private readonly responses = new ResponseStore(this.sql);
  private readonly links = new ResourceLinks(this.sql);
  private readonly wake = new SessionAlarm(this.ctx.storage);
  private readonly calls = new CallsInFlight(() => this.sql);
  private readonly outbox: Outbox = new Outbox(this.sql, this.env.AUDIT, () => this.schedule(), this.ctx);
  /** the schema flag, the alarm's plan and work, deletion (lifecycle.ts) */
  private readonly life: SessionLifecycle = new SessionLifecycle({
    storage: this.ctx.storage,
    env: this.env,
    store: this.store,
    servers: this.servers,
    responses: this.responses,
    calls: this.calls,
    wake: this.wake,
    outbox: () => this.outbox,
    quotas: this.quotas,
  });
  /** the session principal's tokens, held a few seconds (token-cache.ts) */
  private readonly tokens = new TokenCache(this.env, () => this.store.init());
  /** the gate, activations, calls, resources (tool-use.ts) */
  private readonly tools = new ToolUse({
    storage: this.ctx.storage,
    env: this.env,
    store: this.store,
    servers: this.servers,
    links: this.links,
    calls: this.calls,
    wake: this.wake,
    tokens: this.tokens,
    schedule: () => this.schedule(),
  });
  private role?: PrincipalRole;
  private quotaRole?: QuotaRole;
  private approvalRole?: ApprovalRole;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    if (this.life.hasSchema) {
      this.life.migrate(); // tables a newer version adds
      // rows still `started` belonged to an instance that is gone: their answer is lost
      if (this.calls.settle()) void this.schedule();
    }
  }

  /** Deliver the outbox to D1 now; on failure the alarm retries (with backoff). */
  kickDelivery(): Promise<void> {
    return this.outbox.kick();
  }

  /** The alarm at the session's expiry or the outbox's delivery, whichever comes first (lifecycle.ts). */
  private schedule(): Promise<void> {
    return this.life.schedule();
  }

  /** Create the session; false when this object already holds one (ids are never reused). */
  async create(init: SessionInit): Promise<SessionState | null> {
    if (this.store.row()) return null;
    this.life.migrate();
    const now = Date.now();
    this.store.insert(init, now);
    await this.wake.set(now + init.ttlMs);
    return { ...init, activations: [], createdAt: now, lastUsedAt: now };
  }

  /**
   * The session, or null if it does not exist (never created, deleted or expired). Marks it used.
   * Tools the gate refuses now (a rule changed since they loaded) are left out of what it holds.
   */
  async get(rules: LiveRules): Promise<SessionState | null> {
    const state = this.store.use();
    if (!state) return null;
    // a catalog no longer deployed: the state as stored, and the caller answers the 409 (create.ts sessionCatalog)
    const gated = await this.tools.gate(state, rules).catch(() => null);
    if (!gated) return state;
    const { gate } = gated;
    const open = (n: string) => !gate(n);
    return { ...state, coreTools: state.coreTools.filter(open), activations: state.activations.filter(open) };
  }

  /** A chat turn's session and the splices whose prefix is one of `prefixes` (its history's hashes); null: no session. */
  async beginChat(prefixes: string[], rules: LiveRules): Promise<{ state: SessionState; splices: Splice[] } | null> {
    const state = await this.get(rules);
    if (!state) return null;
    return { state, splices: this.store.splices(prefixes) };
  }

  /** Remember what upstream saw in a turn that the client did not; the newest per prefix wins. */
  addSplice(splice: Splice): boolean {
    return this.ctx.storage.transactionSync(() => {
      if (!this.store.row()) return false;
      this.store.addSplice(splice);
      return true;
    });
  }

  /** Store a response (Responses endpoint); false if the session does not exist. */
  putResponse(stored: StoredResponse): boolean {
    if (!this.store.row()) return false;
    this.responses.put(stored, this.quotas().responsesPerSession);
    return true;
  }

  /** A stored response, and with `thread` the conversation up to it; null: no such session or response. */
  response(id: string): ResponseObject | null {
    return this.store.row() ? this.responses.get(id) : null;
  }
  responseThread(id: string): ResponseThread | null {
    return this.store.row() ? this.responses.thread(id) : null;
  }
  deleteResponse(id: string): boolean {
    return !!this.store.row() && this.responses.delete(id);
  }

  /** Replace the plan for the client's declared tools (its tool set changed); false: no session. */
  setClientTools(plan: ClientPlan): boolean {
    const init = this.store.init();
    if (!init) return false;
    this.store.setClientTools(init, plan);
    return true;
  }

  /**
   * Record a toolSearch: activate `names` not yet loaded (core tools count as loaded), in order,
   * and log the query, with its audit rows (search, activations, denials). Null if the session
   * does not exist. A load a call (or a tool_choice) makes for itself (`audit.load`) is audited as
   * activations only, with no search row. Names the gate refuses are not loaded: audited as
   * denials, and answered in `denied` (tool-use.ts).
   */
  activate(names: string[], query: string, audit: ActivationAudit, rules: LiveRules): Promise<ActivationResult | null> {
    return this.tools.activate(names, query, audit, rules);
  }

  /** Run one catalog tool on its server: the one execution path (execution.ts). Null: no session. */
  callTool(name: string, args: unknown, context: CallContext, rules: LiveRules): Promise<CallOutcome | null> {
    return this.tools.call(name, args, context, rules);
  }

  /** A code-mode run's own audit row, when it ends (its calls carry its id: worker/code/run.ts). False: no session. */
  recordRun(event: Omit<AuditInput, "type">): boolean {
    return this.recordEvent({ ...event, type: "run" });
  }

  /** An audit row of the session's own (a run's, an approval's decision); false: no session. */
  recordEvent(event: AuditInput & { type: "run" | "approval" }): boolean {
    const init = this.store.init();
    if (!init) return false;
    this.ctx.storage.transactionSync(() => this.store.writeAudit(init, [event]));
    void this.schedule();
    return true;
  }

  /** The gateway's upstream resources and prompts (resource-gate.ts). Null: no session. */
  resources(op: GatewayResourceOp, context: CallContext, rules: LiveRules): Promise<ResourceOutcome | null> {
    return this.tools.resources(op, context, rules);
  }

  /** The quota role, for an object named `quota:<tenant>/<key id>` only (quota-role.ts). */
  quota(): QuotaRole {
    return (this.quotaRole ??= new QuotaRole(this.ctx.storage));
  }

  /** The approvals role, for an object named `approvals:<tenant>/<user>` only (approvals/approval-role.ts). */
  approvals(): ApprovalRole {
    return (this.approvalRole ??= ApprovalRole.of(this.ctx.id.name, this.sql));
  }

  /** The principal role, for an object named `principal:<tenant>/<user>` only (accounts/principal-role.ts). */
  principal(): PrincipalRole {
    return (this.role ??= PrincipalRole.of(this.ctx.id.name, this.sql, this.env));
  }

  /**
   * Cancel the calls running under `key` (CallContext.key), and those that begin with it for a
   * minute: their servers are sent notifications/cancelled, their rows end `cancelled`. The number
   * cancelled now; it touches no storage, so it needs no session.
   */
  cancel(key: string, reason: string): number {
    return this.calls.cancel(key, reason);
  }

  /** This session's audit events, newest first (its own rows: complete even while D1 is down). */
  audit(q: AuditQuery) {
    if (!this.store.row()) return null;
    return listSessionAudit(this.sql, q);
  }

  /** The calls the Worker ran for this session, per surface (null: no session). */
  workerCalls(): Array<{ via: string; calls: number }> | null {
    return this.store.row() ? workerCalls(this.sql) : null;
  }

  /** What happened in the session, read-only (not counted as use); null if there is no session. */
  history(): SessionHistory | null {
    return this.store.history();
  }

  /**
   * Delete the session: cancel its calls in flight, close its upstream MCP sessions, remove
   * everything but audit rows D1 does not have yet (lifecycle.ts). False if there was no session.
   */
  remove(): Promise<boolean> {
    return this.life.remove();
  }

  async alarm(): Promise<void> {
    this.wake.fired();
    if (QuotaRole.is(this.ctx.id.name)) return this.quota().expire();
    await this.life.alarm();
  }
}
