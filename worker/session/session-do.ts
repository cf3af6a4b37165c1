// SessionDO: one Durable Object per session, SQLite storage. It stores what was frozen when the
// session started (catalog, model, profile, mode, system section, core tools, the tenant's access
// rules, execution mode), the plan for the tools the client declares on the chat endpoint, the
// activations in order, an event log, the chat endpoint's splices (what upstream saw that the
// client did not), stored Responses, the kept-alive upstream MCP sessions, and the audit rows (written in the same
// transaction as the state they describe; undelivered rows are the outbox to D1). State changes
// use synchronous ctx.storage.sql in transactions, so concurrent calls cannot lose or duplicate an
// activation. One alarm serves both the idle-session TTL and the outbox retry (the earlier of the
// two). Deletion closes the upstream sessions and removes everything but undelivered audit rows,
// which stay until D1 has them.

import { DurableObject } from "cloudflare:workers";
import { auditRow, eventId, type AuditInput, type AuditQuery } from "../core/audit.ts";
import { argsDigest } from "../core/call-result.ts";
import type { ClientPlan } from "../core/client-tools.ts";
import type { ResponseObject } from "../responses/shapes.ts";
import type { Splice } from "../core/splice.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import { loadCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import { AUDIT_SCHEMA, insertAudit, listSessionAudit, Outbox, outboxSize } from "./audit-store.ts";
import { closeServerSessions, executeCall, type CallContext, type CallOutcome } from "./execution.ts";
import { RESPONSES_SCHEMA, ResponseStore, type ResponseThread, type StoredResponse } from "./response-store.ts";
import { SERVER_SESSIONS_SCHEMA, ServerSessions } from "./server-sessions.ts";
import type { SessionHistory, SessionInit, SessionState } from "./state.ts";

const MAX_SPLICES = 500;

export class SessionDO extends DurableObject<Env> {
  private sql: SqlStorage;
  private seq = 0;
  private outbox: Outbox;
  private servers: ServerSessions;
  private responses: ResponseStore;
  /** the alarm this instance last set (null: none; undefined: not known since the object started) */
  private alarmAt: number | null | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.migrate();
    this.servers = new ServerSessions(this.sql);
    this.responses = new ResponseStore(this.sql);
    this.outbox = new Outbox(
      this.sql,
      env.AUDIT,
      () => this.schedule(),
      (p) => ctx.waitUntil(p),
    );
  }

  /** Schema, created once per object (IF NOT EXISTS: also after deleteAll). */
  private migrate(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS session (
        id TEXT PRIMARY KEY, data TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS activations (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, query TEXT NOT NULL, loaded TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS splices (prefix TEXT PRIMARY KEY, at INTEGER NOT NULL, data TEXT NOT NULL, seq INTEGER NOT NULL);
      ${AUDIT_SCHEMA} ${SERVER_SESSIONS_SCHEMA} ${RESPONSES_SCHEMA}`);
  }

  private init(): SessionInit | null {
    const r = this.row();
    return r ? (JSON.parse(r.data) as SessionInit) : null;
  }

  /** Audit rows for `events` (call inside the transaction that writes the state they describe). */
  private writeAudit(init: Pick<SessionInit, "id" | "tenant">, events: readonly AuditInput[], at = Date.now()): void {
    const tenant = init.tenant ?? this.ctx.id.name?.split("/")[0] ?? "";
    insertAudit(
      this.sql,
      events.map((e) => auditRow(e, at, eventId(at, this.seq++, crypto.getRandomValues(new Uint8Array(6))), tenant, init.id)),
    );
  }

  /** Deliver the outbox to D1 now; on failure the alarm retries (with backoff). */
  kickDelivery(): Promise<void> {
    return this.outbox.kick();
  }

  /**
   * The one alarm: at or before the earlier of the session's expiry and the outbox retry, or none
   * when neither is left. An alarm already set earlier stays (its handler re-checks and moves it),
   * so a busy session does not rewrite its alarm on every call. Computed and issued with no await
   * in between: storage calls run in issue order, so the last one issued reflects the latest state.
   */
  private schedule(): Promise<void> {
    const r = this.sql.exec<{ last_used_at: number; ttl_ms: number }>("SELECT last_used_at, ttl_ms FROM session").toArray()[0];
    if (!r) this.sql.exec("DELETE FROM audit WHERE delivered = 1");
    const expiry = r ? r.last_used_at + r.ttl_ms : Infinity;
    const retry = outboxSize(this.sql) ? Date.now() + Math.max(this.outbox.retryMs, 1000) : Infinity;
    const next = Math.min(expiry, retry);
    if (next === Infinity) {
      this.alarmAt = null;
      return this.ctx.storage.deleteAlarm();
    }
    if (typeof this.alarmAt === "number" && this.alarmAt <= next) return Promise.resolve();
    this.alarmAt = next;
    return this.ctx.storage.setAlarm(next);
  }

  private row(): { data: string; created_at: number; last_used_at: number } | undefined {
    return this.sql
      .exec<{ data: string; created_at: number; last_used_at: number }>("SELECT data, created_at, last_used_at FROM session")
      .toArray()[0];
  }

  private activationNames(): string[] {
    return this.sql
      .exec<{ name: string }>("SELECT name FROM activations ORDER BY seq")
      .toArray()
      .map((r) => r.name);
  }

  /** Create the session; false when this object already holds one (ids are never reused). */
  async create(init: SessionInit): Promise<SessionState | null> {
    if (this.row()) return null;
    const now = Date.now();
    this.sql.exec(
      "INSERT INTO session (id, data, created_at, last_used_at, ttl_ms) VALUES (?, ?, ?, ?, ?)",
      init.id,
      JSON.stringify(init),
      now,
      now,
      init.ttlMs,
    );
    this.alarmAt = now + init.ttlMs;
    await this.ctx.storage.setAlarm(this.alarmAt);
    return { ...init, activations: [], createdAt: now, lastUsedAt: now };
  }

  /** The session, or null if it does not exist (never created, deleted or expired). Marks it used. */
  get(): SessionState | null {
    const r = this.row();
    if (!r) return null;
    const now = Date.now();
    this.sql.exec("UPDATE session SET last_used_at = ?", now);
    const init = JSON.parse(r.data) as SessionInit;
    // sessions stored before activation modes existed are inject sessions
    return {
      ...init,
      activation: init.activation ?? "inject",
      activations: this.activationNames(),
      createdAt: r.created_at,
      lastUsedAt: now,
    };
  }

  /**
   * Start a chat turn: the session and the stored splices whose prefix is one of `prefixes` (the
   * hashes of the client's history so far). Null if the session does not exist.
   */
  beginChat(prefixes: string[]): { state: SessionState; splices: Splice[] } | null {
    const state = this.get();
    if (!state) return null;
    const splices = this.sql
      .exec<{ data: string }>(
        "SELECT data FROM splices WHERE prefix IN (SELECT value FROM json_each(?)) ORDER BY at",
        JSON.stringify(prefixes),
      )
      .toArray()
      .map((r) => JSON.parse(r.data) as Splice);
    return { state, splices };
  }

  /** Remember what upstream saw in a turn that the client did not; the newest per prefix wins. */
  addSplice(splice: Splice): boolean {
    return this.ctx.storage.transactionSync(() => {
      if (!this.row()) return false;
      const seq = (this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM splices").one().n ?? 0) + 1;
      this.sql.exec(
        "INSERT OR REPLACE INTO splices (prefix, at, data, seq) VALUES (?, ?, ?, ?)",
        splice.prefix,
        splice.at,
        JSON.stringify(splice),
        seq,
      );
      // bounded: abandoned branches of edited histories must not grow a session without end
      this.sql.exec("DELETE FROM splices WHERE seq <= ?", seq - MAX_SPLICES);
      return true;
    });
  }

  /** Store a response (Responses endpoint); false if the session does not exist. */
  putResponse(stored: StoredResponse): boolean {
    if (!this.row()) return false;
    this.responses.put(stored);
    return true;
  }

  /** A stored response, and with `thread` the conversation up to it; null: no such session or response. */
  response(id: string): ResponseObject | null {
    return this.row() ? this.responses.get(id) : null;
  }
  responseThread(id: string): ResponseThread | null {
    return this.row() ? this.responses.thread(id) : null;
  }
  deleteResponse(id: string): boolean {
    return !!this.row() && this.responses.delete(id);
  }

  /**
   * Replace the plan for the client's declared tools (its tool set changed in a named session).
   * False if the session does not exist.
   */
  setClientTools(plan: ClientPlan): boolean {
    const r = this.row();
    if (!r) return false;
    this.sql.exec("UPDATE session SET data = ?", JSON.stringify({ ...(JSON.parse(r.data) as SessionInit), clientTools: plan }));
    return true;
  }

  /**
   * Record a toolSearch: activate `names` not yet loaded (core tools count as loaded), in order,
   * and log the query, with its audit rows (search, activations, denials). Null if the session
   * does not exist. A load a call (or a tool_choice) makes for itself (`audit.load`) is audited as
   * activations only, with no search row.
   */
  async activate(names: string[], query: string, audit: ActivationAudit = {}): Promise<ActivationResult | null> {
    const digest = await argsDigest({ query });
    // one transaction: a failure part-way (storage error, reset) must not leave half an activation
    const result = this.ctx.storage.transactionSync(() => {
      const r = this.row();
      if (!r) return null;
      const init = JSON.parse(r.data) as SessionInit;
      const storeArgs = init.storeArguments === true;
      const core = new Set(init.coreTools);
      const now = Date.now();
      const loaded: string[] = [];
      const alreadyLoaded: string[] = [];
      for (const name of names) {
        if (core.has(name) || this.sql.exec("SELECT 1 FROM activations WHERE name = ?", name).toArray().length) {
          alreadyLoaded.push(name);
          continue;
        }
        this.sql.exec("INSERT INTO activations (name, at) VALUES (?, ?)", name, now);
        loaded.push(name);
      }
      this.sql.exec("INSERT INTO events (at, query, loaded) VALUES (?, ?, ?)", now, query, JSON.stringify(loaded));
      this.sql.exec("UPDATE session SET last_used_at = ?", now);
      const via = audit.via ?? "rest";
      const events: AuditInput[] = [];
      if (!audit.load) {
        const detail = `${audit.matched ?? names.length} matched; loaded ${loaded.length}, already loaded ${alreadyLoaded.length}`;
        events.push({ type: "search", tool: null, outcome: "ok", via, ...digest, detail, arguments: storeArgs ? digest.canonical : null });
      }
      for (const name of loaded) events.push({ type: "activation", tool: name, outcome: "ok", via });
      for (const d of audit.denied ?? []) events.push({ type: "denial", tool: d.name, outcome: "denied", via, detail: d.reason });
      this.writeAudit(init, events, now);
      return { loaded, alreadyLoaded, activations: this.activationNames() };
    });
    if (result) void this.kickDelivery();
    return result;
  }

  /** Run one catalog tool on its server: the one execution path (execution.ts). Null: no session. */
  async callTool(name: string, args: unknown, context: CallContext): Promise<CallOutcome | null> {
    const init = this.init();
    if (!init) return null;
    const catalog = await loadCatalog(this.env.ASSETS, init.catalogFile);
    const outcome = await executeCall(
      {
        init,
        activations: this.activationNames(),
        activate: (names, query, audit) => this.activate(names, query, audit),
        writeAudit: (events) => this.writeAudit(init, events),
        transaction: (fn) => this.ctx.storage.transactionSync(fn),
        servers: this.servers,
      },
      { settings: settings(this.env), catalog },
      name,
      args,
      context,
    );
    void this.kickDelivery();
    return outcome;
  }

  /** This session's audit events, newest first (its own rows: complete even while D1 is down). */
  audit(q: AuditQuery) {
    if (!this.row()) return null;
    return listSessionAudit(this.sql, q);
  }

  events(): Array<{ at: number; query: string; loaded: string[] }> {
    return this.sql
      .exec<{ at: number; query: string; loaded: string }>("SELECT at, query, loaded FROM events ORDER BY seq")
      .toArray()
      .map((e) => ({ at: e.at, query: e.query, loaded: JSON.parse(e.loaded) as string[] }));
  }

  /**
   * What happened in the session, for reading only (it does not count as use): activations in
   * order with their times, every toolSearch with the names it newly loaded, and the stored
   * splices in the order they were written. Null if the session does not exist.
   */
  history(): SessionHistory | null {
    if (!this.row()) return null;
    const activations = this.sql.exec<{ name: string; at: number }>("SELECT name, at FROM activations ORDER BY seq").toArray();
    const splices = this.sql
      .exec<{ seq: number; data: string }>("SELECT seq, data FROM splices ORDER BY seq")
      .toArray()
      .map((r) => ({ seq: r.seq, ...(JSON.parse(r.data) as Splice) }));
    return { activations, searches: this.events(), splices };
  }

  /**
   * Delete the session: close its upstream MCP sessions (HTTP DELETE), then remove everything it
   * stored except audit rows D1 does not have yet. False if there was no session.
   */
  async remove(): Promise<boolean> {
    const init = this.init();
    if (init) await closeServerSessions(this.servers, settings(this.env), init.id);
    this.ctx.storage.transactionSync(() => {
      for (const t of ["session", "activations", "events", "splices"]) this.sql.exec(`DELETE FROM ${t}`);
      this.servers.clear();
      this.responses.clear();
      this.sql.exec("DELETE FROM audit WHERE delivered = 1");
    });
    if (outboxSize(this.sql)) await this.kickDelivery();
    else await this.schedule();
    return !!init;
  }

  async alarm(): Promise<void> {
    // alarms may fire more than once: delivery is idempotent, and expiry checks the clock
    this.alarmAt = undefined;
    await this.kickDelivery();
    const r = this.sql.exec<{ last_used_at: number; ttl_ms: number }>("SELECT last_used_at, ttl_ms FROM session").toArray()[0];
    if (r && Date.now() >= r.last_used_at + r.ttl_ms) await this.remove();
    else await this.schedule();
  }
}
