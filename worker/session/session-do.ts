// SessionDO: one Durable Object per session, SQLite storage. It stores what was frozen when the
// session started (catalog, model, profile, mode, system section, core tools, the tenant's access
// rules, execution mode), the plan for the tools the client declares on the chat endpoint, the
// activations in order, an event log, the chat endpoint's splices (what upstream saw that the
// client did not), stored Responses, the kept-alive upstream MCP sessions, and the audit rows (written in the same
// transaction as the state they describe; undelivered rows are the outbox to D1). State changes
// use synchronous ctx.storage.sql in transactions, so concurrent calls cannot lose or duplicate an
// activation. Calls are written ahead (calls-in-flight.ts). The schema is created with the session,
// never by a read (schema.ts). One alarm serves the idle-session TTL and the outbox retry (the
// earlier of the two). Deletion cancels calls in flight, closes the upstream sessions and removes
// everything but undelivered audit rows, which stay until D1 has them; then the storage is dropped.

import { DurableObject } from "cloudflare:workers";
import { auditRow, eventId, type AuditInput, type AuditQuery } from "../core/audit.ts";
import { argsDigest } from "../core/call-result.ts";
import type { ClientPlan } from "../core/client-tools.ts";
import type { ResponseObject } from "../responses/shapes.ts";
import type { Splice } from "../core/splice.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import { loadCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import { insertAudit, listSessionAudit, Outbox, outboxSize, workerCalls } from "./audit-store.ts";
import { CallsInFlight } from "./calls-in-flight.ts";
import { closeServerSessions, executeCall, type CallContext, type CallOutcome } from "./execution.ts";
import { ResponseStore, type ResponseThread, type StoredResponse } from "./response-store.ts";
import { hasSchema, migrate } from "./schema.ts";
import { ServerSessions } from "./server-sessions.ts";
import type { SessionHistory, SessionInit, SessionState } from "./state.ts";

const MAX_SPLICES = 500;
/** how long after a call starts the object wakes, in case the instance died meanwhile */
const SETTLE_AFTER_MS = 60_000;

export class SessionDO extends DurableObject<Env> {
  private sql: SqlStorage;
  private seq = 0;
  private outbox: Outbox;
  private servers: ServerSessions;
  private responses: ResponseStore;
  /** the alarm this instance last set (null: none; undefined: not known since the object started) */
  private alarmAt: number | null | undefined;

  private calls = new CallsInFlight(() => this.sql);
  /** whether the schema exists (schema.ts): an object only ever read or probed must not get storage */
  private hasSchema: boolean;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.servers = new ServerSessions(this.sql);
    this.responses = new ResponseStore(this.sql);
    this.outbox = new Outbox(
      this.sql,
      env.AUDIT,
      () => this.schedule(),
      (p) => ctx.waitUntil(p),
    );
    this.hasSchema = hasSchema(this.sql);
    if (this.hasSchema) {
      this.migrate(); // tables a newer version adds
      // rows still `started` belonged to an instance that is gone: their answer is lost
      if (this.calls.settle()) void this.schedule();
    }
  }

  private migrate(): void {
    migrate(this.sql);
    this.hasSchema = true;
  }

  private init(): SessionInit | null {
    const r = this.row();
    return r ? (JSON.parse(r.data) as SessionInit) : null;
  }

  /** Audit rows for `events` (call inside the transaction that writes the state they describe). */
  private writeAudit(init: Pick<SessionInit, "id" | "tenant">, events: readonly AuditInput[], at = Date.now()): string[] {
    const tenant = init.tenant ?? this.ctx.id.name?.split("/")[0] ?? "";
    const rows = events.map((e) => auditRow(e, at, eventId(at, this.seq++, crypto.getRandomValues(new Uint8Array(6))), tenant, init.id));
    insertAudit(this.sql, rows);
    return rows.map((r) => r.id);
  }

  /** Deliver the outbox to D1 now; on failure the alarm retries (with backoff). */
  kickDelivery(): Promise<void> {
    return this.outbox.kick();
  }

  /**
   * The one alarm: at or before the earlier of the session's expiry and the outbox's delivery
   * (about a second after rows appear, so rows go to D1 in batches; longer after failures), or none
   * when neither is left. An alarm already set earlier stays (its handler re-checks and moves it),
   * so a busy session does not rewrite its alarm on every call. Computed and issued with no await
   * in between: storage calls run in issue order, so the last one issued reflects the latest state.
   */
  private schedule(): Promise<void> {
    if (!this.hasSchema) return Promise.resolve();
    const r = this.sql.exec<{ last_used_at: number; ttl_ms: number }>("SELECT last_used_at, ttl_ms FROM session").toArray()[0];
    if (!r) this.sql.exec("DELETE FROM audit WHERE delivered = 1");
    const expiry = r ? r.last_used_at + r.ttl_ms : Infinity;
    const retry = outboxSize(this.sql) ? Date.now() + Math.max(this.outbox.retryMs, 1000) : Infinity;
    const next = Math.min(expiry, retry);
    if (next === Infinity) {
      this.alarmAt = null;
      return this.ctx.storage.deleteAlarm();
    }
    return this.wakeBy(next);
  }

  /** An alarm at `at` at the latest (an earlier one stays). */
  private wakeBy(at: number): Promise<void> {
    if (typeof this.alarmAt === "number" && this.alarmAt <= at) return Promise.resolve();
    this.alarmAt = at;
    return this.ctx.storage.setAlarm(at);
  }

  private row(): { data: string; created_at: number; last_used_at: number } | undefined {
    if (!this.hasSchema) return undefined;
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
    this.migrate();
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
      const client = audit.client ?? null;
      const events: AuditInput[] = [];
      if (!audit.load) {
        const detail = `${audit.matched ?? names.length} matched; loaded ${loaded.length}, already loaded ${alreadyLoaded.length}`;
        const args = storeArgs ? digest.canonical : null;
        events.push({ type: "search", tool: null, outcome: "ok", via, client, ...digest, detail, arguments: args });
      }
      for (const name of loaded) events.push({ type: "activation", tool: name, outcome: "ok", via, client });
      for (const d of audit.denied ?? []) events.push({ type: "denial", tool: d.name, outcome: "denied", via, client, detail: d.reason });
      this.writeAudit(init, events, now);
      return { loaded, alreadyLoaded, activations: this.activationNames() };
    });
    // delivered in a batch by the alarm, about a second after rows appear (not on the response's way out)
    if (result) void this.schedule();
    return result;
  }

  /** Run one catalog tool on its server: the one execution path (execution.ts). Null: no session. */
  async callTool(name: string, args: unknown, context: CallContext): Promise<CallOutcome | null> {
    const init = this.init();
    if (!init) return null;
    // a call is use: committed with the call's own first write, not by a get() of its own
    this.sql.exec("UPDATE session SET last_used_at = ?", Date.now());
    const catalog = await loadCatalog(this.env.ASSETS, init.catalogFile);
    const outcome = await executeCall(
      {
        init,
        activations: this.activationNames(),
        activate: (names, query, audit) => this.activate(names, query, audit),
        writeAudit: (events) => void this.writeAudit(init, events),
        begin: (event) => {
          // should this instance die mid-call, an alarm wakes the object to settle the row (unknown) and deliver it
          void this.wakeBy(Date.now() + SETTLE_AFTER_MS);
          return this.calls.begin((e) => this.writeAudit(init, [{ ...event, ...e }])[0]!);
        },
        transaction: (fn) => this.ctx.storage.transactionSync(fn),
        servers: this.servers,
      },
      { settings: settings(this.env), catalog },
      name,
      args,
      context,
    );
    void this.schedule(); // the alarm delivers the rows, batched
    return outcome;
  }

  /** This session's audit events, newest first (its own rows: complete even while D1 is down). */
  audit(q: AuditQuery) {
    if (!this.row()) return null;
    return listSessionAudit(this.sql, q);
  }

  /** The calls the Worker ran for this session, per surface (null: no session). */
  workerCalls(): Array<{ via: string; calls: number }> | null {
    return this.row() ? workerCalls(this.sql) : null;
  }

  events(): Array<{ at: number; query: string; loaded: string[] }> {
    if (!this.hasSchema) return [];
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
   * Delete the session: cancel its calls in flight (the server is told; their rows end
   * `cancelled`), close its upstream MCP sessions (HTTP DELETE), then remove everything it stored
   * except audit rows D1 does not have yet. False if there was no session.
   */
  async remove(): Promise<boolean> {
    const init = this.init();
    if (!init) return false;
    this.calls.abortAll("the session was deleted");
    await closeServerSessions(this.servers, settings(this.env), init.id);
    this.ctx.storage.transactionSync(() => {
      for (const t of ["session", "activations", "events", "splices"]) this.sql.exec(`DELETE FROM ${t}`);
      this.servers.clear();
      this.responses.clear();
      this.sql.exec("DELETE FROM audit WHERE delivered = 1");
    });
    if (outboxSize(this.sql)) await this.kickDelivery();
    if (!(await this.dropIfEmpty())) await this.schedule();
    return true;
  }

  /** Nothing left to keep (no session, no row D1 lacks, no call in flight): drop the storage. */
  private async dropIfEmpty(): Promise<boolean> {
    if (this.row() || this.calls.size) return false;
    if (this.hasSchema && this.sql.exec("SELECT 1 FROM audit WHERE delivered = 0 LIMIT 1").toArray().length) return false;
    // first: nothing that runs while deleteAll() is awaited may use the tables
    this.hasSchema = false;
    this.alarmAt = null;
    await this.ctx.storage.deleteAll(); // also the alarm
    return true;
  }

  async alarm(): Promise<void> {
    // alarms may fire more than once: delivery is idempotent, and expiry checks the clock
    this.alarmAt = undefined;
    if (!this.hasSchema) return void (await this.ctx.storage.deleteAll()); // an object that only ever got probed
    this.calls.settle();
    await this.kickDelivery();
    const r = this.sql.exec<{ last_used_at: number; ttl_ms: number }>("SELECT last_used_at, ttl_ms FROM session").toArray()[0];
    if (r && Date.now() >= r.last_used_at + r.ttl_ms) await this.remove();
    if (!(await this.dropIfEmpty())) await this.schedule();
  }
}
