// The audit trail, pure: one event per search, activation, call and denial, how it is stored
// (a row, the same in the session's SQLite and in D1) and listed (newest first, by a cursor).
// Event ids sort by time: `ev_<ms hex><per-session sequence hex><random hex>`, so the id alone
// orders a listing and makes delivery to D1 idempotent (INSERT OR IGNORE by id).

import { ToolsearchError } from "./errors.ts";

// `resource` and `prompt`: an upstream resource read or prompt fetched through the MCP gateway (tool: the URI or the prefixed name);
// `run`: a code-mode program (args_digest: the code's; detail: its calls), whose calls carry its id in `run`
export type AuditType = "search" | "activation" | "call" | "denial" | "resource" | "prompt" | "run" | "approval";
// `started`: a call's row written before it is sent (write-ahead), completed with its outcome when
// it ends; `unknown`: still started when its session object restarted (the answer was lost);
// `config_error`: the deployment cannot reach the server (a missing secret): nothing was sent;
// `needs_connection`: the server authorizes each user (OAuth) and this one has not connected it
// (or the grant is gone): the answer is a connect link, nothing was sent; `needs_user`: such a
// server, and the session's principal names no user to connect an account for: nothing was sent;
// `rate_limited`: the key's quota of upstream calls was reached: nothing was sent;
// `program_error`: a code-mode program that did not finish (a syntax error, a throw, a limit: the detail says which);
// `approval_required`: a call that needs a person's yes (POLICY.approval) asked for one: nothing was sent;
// `approved`, `approval_denied`: the person's decision (an `approval` row: who, how, why), and a call
// refused because of a denial. Every row of one approval carries its id in `approval`.
export const AUDIT_OUTCOMES = [
  "ok",
  "tool_error",
  "timeout",
  "transport_error",
  "cancelled",
  "config_error",
  "started",
  "unknown",
  "denied",
  "invalid_arguments",
  "needs_connection",
  "needs_user",
  "rate_limited",
  "program_error",
  "approval_required",
  "approved",
  "approval_denied",
] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
export const AUDIT_TYPES: readonly AuditType[] = ["search", "activation", "call", "denial", "resource", "prompt", "run", "approval"];

/** An event as recorded (before it has an id and a time). */
export interface AuditInput {
  type: AuditType;
  tool: string | null;
  server?: string | null;
  outcome: AuditOutcome;
  durationMs?: number;
  argsDigest?: string | null;
  argsBytes?: number;
  resultBytes?: number;
  /** a short reason or note: why denied, what failed, how many matched (never argument values) */
  detail?: string | null;
  /** argument values, kept only with AUDIT_ARGUMENTS=store */
  arguments?: string | null;
  /** the surface that caused it: rest, chat, mcp */
  via?: string;
  /** the client program, where the surface names one (MCP clientInfo: `name/version`) */
  client?: string | null;
  /** the code-mode run this event belongs to (its id), or is */
  run?: string | null;
  /** the approval (POLICY.approval) this event asked for, decided, or was released by */
  approval?: string | null;
}

/** One stored row: the columns of `audit` (session SQLite) and `audit_events` (D1). */
export interface AuditRow {
  id: string;
  at: number;
  tenant: string;
  /** the user of the session's principal (null: the key names none) */
  user: string | null;
  session: string;
  type: AuditType;
  tool: string | null;
  server: string | null;
  decision: "allow" | "deny";
  outcome: AuditOutcome;
  duration_ms: number;
  args_digest: string | null;
  args_bytes: number;
  result_bytes: number;
  detail: string | null;
  arguments: string | null;
  via: string;
  client: string | null;
  run: string | null;
  approval: string | null;
}

export const AUDIT_COLUMNS = [
  "id",
  "at",
  "tenant",
  "session",
  "type",
  "tool",
  "server",
  "decision",
  "outcome",
  "duration_ms",
  "args_digest",
  "args_bytes",
  "result_bytes",
  "detail",
  "arguments",
  "via",
  "client",
  "user",
  "run",
  "approval",
] as const;

export function eventId(at: number, seq: number, random: Uint8Array): string {
  const hex = [...random.subarray(0, 6)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `ev_${at.toString(16).padStart(12, "0")}${(seq % 0x1000000).toString(16).padStart(6, "0")}${hex}`;
}

export function auditRow(e: AuditInput, at: number, id: string, owner: { tenant: string; user?: string }, session: string): AuditRow {
  return {
    id,
    at,
    tenant: owner.tenant,
    user: owner.user || null,
    session,
    type: e.type,
    tool: e.tool,
    server: e.server ?? null,
    decision: e.type === "denial" ? "deny" : "allow",
    outcome: e.outcome,
    duration_ms: Math.max(0, Math.round(e.durationMs ?? 0)),
    args_digest: e.argsDigest ?? null,
    args_bytes: e.argsBytes ?? 0,
    result_bytes: e.resultBytes ?? 0,
    detail: e.detail ? e.detail.slice(0, 500) : null,
    arguments: e.arguments ?? null,
    via: e.via ?? "rest",
    client: e.client ? e.client.slice(0, 200) : null,
    run: e.run ?? null,
    approval: e.approval ?? null,
  };
}

/** A row as the audit routes answer it. */
export function auditEvent(r: AuditRow) {
  return {
    id: r.id,
    at: new Date(r.at).toISOString(),
    type: r.type,
    session: r.session,
    tool: r.tool,
    server: r.server,
    decision: r.decision,
    outcome: r.outcome,
    durationMs: r.duration_ms,
    argsDigest: r.args_digest,
    argsBytes: r.args_bytes,
    resultBytes: r.result_bytes,
    detail: r.detail,
    via: r.via,
    client: r.client ?? null,
    user: r.user ?? null,
    run: r.run ?? null,
    approval: r.approval ?? null,
    ...(r.arguments !== null ? { arguments: JSON.parse(r.arguments) as unknown } : {}),
  };
}

export interface AuditQuery {
  session?: string;
  tool?: string;
  outcome?: AuditOutcome;
  type?: AuditType;
  since?: number;
  /** events older than this id (the previous page's cursor) */
  before?: string;
  limit: number;
  /** only the events of this code-mode run (the run's row and its calls) */
  run?: string;
  /** only the events of this approval (its request, its decision, the call it released) */
  approval?: string;
  /** only this user's events (set from the caller's key, never from the query: a user sees only their own) */
  user?: string;
}

export const AUDIT_MAX_LIMIT = 500;
export const RUN_ID_RE = /^run_[A-Za-z0-9_-]{22}$/; // a code-mode run: `run_` and 128 random bits
const bad = (m: string) => new ToolsearchError("bad_request", m);

/** `?session=&tool=&outcome=&type=&run=&approval=&since=&limit=&cursor=`, each checked. */
export function parseAuditQuery(params: URLSearchParams): AuditQuery {
  const known = new Set(["session", "tool", "outcome", "type", "run", "approval", "since", "limit", "cursor"]);
  for (const k of params.keys())
    if (!known.has(k))
      throw bad(`unknown query parameter "${k.slice(0, 40)}" (session, tool, outcome, type, run, approval, since, limit, cursor)`);
  const q: AuditQuery = { limit: 100 };
  const session = params.get("session");
  if (session !== null) {
    if (!/^ses_[A-Za-z0-9_-]{32}$/.test(session)) throw bad("session: must be a session id");
    q.session = session;
  }
  const tool = params.get("tool");
  if (tool !== null) {
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool)) throw bad("tool: must be an exposed tool name");
    q.tool = tool;
  }
  const outcome = params.get("outcome");
  if (outcome !== null) {
    if (!(AUDIT_OUTCOMES as readonly string[]).includes(outcome)) throw bad(`outcome: must be one of ${AUDIT_OUTCOMES.join(", ")}`);
    q.outcome = outcome as AuditOutcome;
  }
  const type = params.get("type");
  if (type !== null) {
    if (!(AUDIT_TYPES as readonly string[]).includes(type)) throw bad(`type: must be one of ${AUDIT_TYPES.join(", ")}`);
    q.type = type as AuditType;
  }
  const run = params.get("run");
  if (run !== null) {
    if (!RUN_ID_RE.test(run)) throw bad("run: must be a run id");
    q.run = run;
  }
  const approval = params.get("approval");
  if (approval !== null) {
    if (!/^ap_[A-Za-z0-9_-]{22}$/.test(approval)) throw bad("approval: must be an approval id");
    q.approval = approval;
  }
  const since = params.get("since");
  if (since !== null) {
    const ms = /^\d+$/.test(since) ? Number(since) : Date.parse(since);
    if (!Number.isFinite(ms)) throw bad("since: must be an ISO 8601 time or milliseconds since 1970");
    q.since = ms;
  }
  const limit = params.get("limit");
  if (limit !== null) {
    const n = Number(limit);
    if (!/^\d+$/.test(limit) || n < 1 || n > AUDIT_MAX_LIMIT) throw bad(`limit: must be an integer from 1 to ${AUDIT_MAX_LIMIT}`);
    q.limit = n;
  }
  const cursor = params.get("cursor");
  if (cursor !== null) {
    if (!/^ev_[0-9a-f]{30}$/.test(cursor)) throw bad("cursor: must be a cursor from a previous page");
    q.before = cursor;
  }
  return q;
}

/** SQL WHERE clause and bindings for a query (the same text works in D1 and in session SQLite). */
export function auditWhere(q: AuditQuery, tenant?: string): { where: string; binds: unknown[] } {
  const clauses: string[] = [];
  const binds: unknown[] = [];
  const add = (sql: string, v: unknown) => (clauses.push(sql), binds.push(v));
  if (tenant !== undefined) add("tenant = ?", tenant);
  if (q.user) add("user = ?", q.user);
  if (q.session) add("session = ?", q.session);
  if (q.tool) add("tool = ?", q.tool);
  if (q.outcome) add("outcome = ?", q.outcome);
  if (q.type) add("type = ?", q.type);
  if (q.run) add("run = ?", q.run);
  if (q.approval) add("approval = ?", q.approval);
  if (q.since !== undefined) add("at >= ?", q.since);
  if (q.before) add("id < ?", q.before);
  return { where: clauses.length ? `WHERE ${clauses.join(" AND ")}` : "", binds };
}

/** A page: `cursor` is the last id when more may follow, else null. */
export function auditPage(rows: AuditRow[], limit: number) {
  const page = rows.slice(0, limit);
  return { events: page.map(auditEvent), cursor: rows.length > limit ? page[page.length - 1]!.id : null };
}
