// The one way to reach a session: a typed client around its Durable Object stub. A session's
// object is named `<tenant>/<id>`, so another tenant's id names an object that holds nothing and
// answers exactly like an unknown id. Ids are issued for a principal (the tenant, or the tenant
// and the user: auth.ts principalScope), so another user's id is the same 404. The object answers null for "no such session" on every
// method; this client turns that into the one 404 (and forgets what the isolate cached), and a
// refused call into its coded error. A session's frozen fields never change, so an isolate keeps
// them (bounded by bytes, frozen-cache.ts): toolSearch and calls then need one object call instead of two. An id not issued for the
// caller's tenant (ids.ts) is the same 404, found before the object is addressed: addressing one
// gives it storage.

import type { AuditInput, AuditQuery } from "../core/audit.ts";
import type { CallToolResult } from "../core/call-result.ts";
import type { ClientPlan } from "../core/client-tools.ts";
import { RateLimited, ToolsearchError } from "../core/errors.ts";
import type { Splice } from "../core/splice.ts";
import type { GatewayResourceOp, ResourceOutcome } from "../core/mcp-resources.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import type { RouteContext } from "../http.ts";
import type { CallContext, CallOutcome } from "./execution.ts";
import type { SessionDO } from "./session-do.ts";
import type { ResponseObject } from "../responses/shapes.ts";
import type { ResponseThread, StoredResponse } from "./response-store.ts";
import type { SessionHistory, SessionInit, SessionState } from "./state.ts";
import { settings } from "../settings.ts";
import { liveRules, type LiveRules } from "../core/gate.ts";
import { issuedFor } from "./ids.ts";
import { principalScope } from "../auth.ts";
import { ByteBoundedCache } from "./frozen-cache.ts";
import { admit, type QuotaContext } from "./quota-client.ts";

/** What reaching a session needs of a request: who calls, the bindings, and where it came in. */
export type SessionContext = Pick<RouteContext, "env" | "tenant" | "user" | "key"> & Partial<Pick<RouteContext, "url">>;

export const SESSION_ID_RE = /^ses_[A-Za-z0-9_-]{32}$/;

/** What an isolate may keep of a session: everything but what changes (activations, use, client plan). */
export type FrozenState = Omit<SessionState, "activations" | "lastUsedAt" | "clientTools">;

const frozenCache = new ByteBoundedCache<FrozenState>();

export function notFound(id: string): ToolsearchError {
  return new ToolsearchError("not_found", `session ${id.slice(0, 80)} does not exist`);
}

/** A refused call as the surface's error (a quota's: 429 with retry-after); a result as it is. */
export function resultOf(outcome: CallOutcome): CallToolResult {
  if (outcome.ok) return outcome.result;
  if (outcome.code === "rate_limited") throw new RateLimited(outcome.message, outcome.retryAfter ?? 60);
  throw new ToolsearchError(outcome.code, outcome.message);
}

export class SessionClient {
  readonly id: string;
  private readonly key: string;
  private readonly target: DurableObjectStub<SessionDO>;
  private readonly issued: Promise<boolean>;
  /** the Worker's origin as this request reached it: a call's connect links point there */
  private readonly origin?: string;
  /** the deployment's rules now, for the object's tool gate (core/gate.ts): sent with every use */
  private readonly rules: LiveRules;
  /** who counts a new session against its key's quota (quota-client.ts) */
  private readonly quota: QuotaContext;

  private constructor(c: SessionContext, id: string) {
    this.id = id;
    this.origin = c.url?.origin;
    this.key = `${principalScope(c)}/${id}`;
    this.rules = liveRules(settings(c.env).policy, c.tenant);
    this.quota = { env: c.env, tenant: c.tenant, key: c.key };
    // a stub does not wake its object; `stub()` is what reaches it, after the id's check
    this.target = c.env.SESSIONS.getByName(`${c.tenant}/${id}`);
    this.issued = frozenCache.has(this.key)
      ? Promise.resolve(true)
      : issuedFor(settings(c.env).secret("SESSION_ID_SECRET"), principalScope(c), id);
    this.issued.catch(() => {});
  }

  /** The object, once the id is known to be this tenant's; else the 404. */
  private async stub(): Promise<DurableObjectStub<SessionDO>> {
    if (!(await this.issued)) throw notFound(this.id);
    return this.target;
  }

  /** The client for `id` in the caller's tenant; a malformed id is the same 404 as an unknown one. */
  static of(c: SessionContext, id: string): SessionClient {
    if (!SESSION_ID_RE.test(id)) throw notFound(id);
    return new SessionClient(c, id);
  }

  private gone(): ToolsearchError {
    frozenCache.delete(this.key);
    return notFound(this.id);
  }

  private remember(state: SessionState): SessionState {
    const { activations: _a, lastUsedAt: _l, clientTools: _c, ...frozen } = state;
    frozenCache.set(this.key, frozen);
    return state;
  }

  /** The session now (marks it used). */
  async state(): Promise<SessionState> {
    const state = await (await this.stub()).get(this.rules);
    if (!state) throw this.gone();
    return this.remember(state);
  }

  /** The frozen fields: from this isolate's cache, else from the object. */
  async frozen(): Promise<FrozenState> {
    return frozenCache.get(this.key) ?? (await this.state());
  }

  /** Store a new session, counted against the key's sessions an hour; null when this object already holds one. */
  async create(init: SessionInit): Promise<SessionState | null> {
    await admit(this.quota, "sessions");
    const state = await (await this.stub()).create(init);
    return state && this.remember(state);
  }

  /** A chat turn's session and the splices whose prefix is in `prefixes`; null when there is none yet. */
  async beginChat(prefixes: string[]): Promise<{ state: SessionState; splices: Splice[] } | null> {
    const begun = await (await this.stub()).beginChat(prefixes, this.rules);
    if (begun) this.remember(begun.state);
    return begun;
  }

  async activate(names: string[], query: string, audit: ActivationAudit = {}): Promise<ActivationResult> {
    const result = await (await this.stub()).activate(names, query, audit, this.rules);
    if (!result) throw this.gone();
    return result;
  }

  /** Who calls, for the object: the origin connect links point to, the key its upstream calls count against. */
  private caller(context: CallContext): CallContext {
    return { ...(this.origin ? { origin: this.origin } : {}), ...(this.quota.key ? { keyId: this.quota.key } : {}), ...context };
  }

  /** Run a catalog tool through the one execution path; a refusal is an outcome with its code. */
  async run(name: string, args: unknown, context: CallContext): Promise<CallOutcome> {
    const outcome = await (await this.stub()).callTool(name, args, this.caller(context), this.rules);
    if (!outcome) throw this.gone();
    return outcome;
  }

  /** The MCP gateway's upstream resources and prompts; a refusal is an outcome the surface words. */
  async resources(op: GatewayResourceOp, context: CallContext): Promise<ResourceOutcome> {
    const outcome = await (await this.stub()).resources(op, this.caller(context), this.rules);
    if (!outcome) throw this.gone();
    return outcome;
  }

  /** Run a catalog tool; a refusal throws its coded error. */
  async callTool(name: string, args: unknown, context: CallContext): Promise<CallToolResult> {
    return resultOf(await this.run(name, args, context));
  }

  /** A code-mode run's own audit row (worker/code/run.ts). */
  async recordRun(event: Omit<AuditInput, "type">): Promise<void> {
    if (!(await (await this.stub()).recordRun(event))) throw this.gone();
  }

  /** An approval's decision, audited in its session (approvals/decide.ts). */
  async recordEvent(event: AuditInput & { type: "approval" }): Promise<void> {
    if (!(await (await this.stub()).recordEvent(event))) throw this.gone();
  }

  /** Cancel the session's calls made with CallContext.key `key` (the caller went away); the number cancelled now. */
  async cancel(key: string, reason: string): Promise<number> {
    return (await this.stub()).cancel(key, reason);
  }

  async addSplice(splice: Splice): Promise<void> {
    if (!(await (await this.stub()).addSplice(splice))) throw this.gone();
  }

  async putResponse(stored: StoredResponse): Promise<void> {
    if (!(await (await this.stub()).putResponse(stored))) throw this.gone();
  }

  /** A stored response; null when the session or the response does not exist (the caller words it). */
  async response(id: string): Promise<ResponseObject | null> {
    return (await this.stub()).response(id);
  }

  /** A stored response and the conversation up to it; null like response(). */
  async responseThread(id: string): Promise<ResponseThread | null> {
    return (await this.stub()).responseThread(id);
  }

  async deleteResponse(id: string): Promise<boolean> {
    return (await this.stub()).deleteResponse(id);
  }

  async setClientTools(plan: ClientPlan): Promise<void> {
    if (!(await (await this.stub()).setClientTools(plan))) throw this.gone();
  }

  async audit(q: AuditQuery) {
    const page = await (await this.stub()).audit(q);
    if (!page) throw this.gone();
    return page;
  }

  /** The calls the Worker ran for the session, per surface: what ran, whatever `execution` says. */
  async workerCalls(): Promise<Array<{ via: string; calls: number }>> {
    const calls = await (await this.stub()).workerCalls();
    if (!calls) throw this.gone();
    return calls;
  }

  /** What happened in the session, read-only (not counted as use). */
  async history(): Promise<SessionHistory> {
    const h = await (await this.stub()).history();
    if (!h) throw this.gone();
    return h;
  }

  async remove(): Promise<void> {
    frozenCache.delete(this.key);
    if (!(await (await this.stub()).remove())) throw notFound(this.id);
  }
}
