// SessionDO: one Durable Object per session, SQLite storage. It stores what was frozen when the
// session started (catalog, model, profile, mode, system section, core tools), the plan for the
// tools the client declares on the chat endpoint, the activations in order, an event log, and the
// chat endpoint's splices (what upstream saw that the client did not). Every method uses only
// synchronous ctx.storage.sql, so concurrent calls run one at a time and cannot lose or duplicate
// an activation. Idle sessions expire via an alarm; deletion removes everything.

import { DurableObject } from "cloudflare:workers";
import type { Activation as ActivationMode } from "./core/chat.ts";
import type { ClientPlan } from "./core/client-tools.ts";
import type { ListingForm } from "./core/listing.ts";
import type { Deferral, Mode } from "./core/policy.ts";
import type { Splice } from "./core/splice.ts";
import type { ActivationResult } from "./core/tool-search.ts";

export interface SessionInit {
  id: string;
  catalogFile: string;
  catalogHash: string;
  model: string;
  profile: string;
  mode: Mode;
  /** how activated tools reach the model on the chat endpoint: appended to tools, or via callTool */
  activation: ActivationMode;
  reason: string;
  systemSection: string;
  coreTools: string[];
  /** deferred sessions: the listing form of systemSection */
  listing?: ListingForm;
  ttlMs: number;
  /** what the session was asked for (absent in sessions stored before client tools: "auto") */
  deferral?: Deferral;
  contextWindow?: number;
  /** the plan for the tools the client declares on the chat endpoint; absent: none declared */
  clientTools?: ClientPlan;
}

export interface SessionState extends SessionInit {
  activations: string[];
  createdAt: number;
  lastUsedAt: number;
}

export interface SessionHistory {
  activations: Array<{ name: string; at: number }>;
  searches: Array<{ at: number; query: string; loaded: string[] }>;
  splices: Array<Splice & { seq: number }>;
}

const MAX_SPLICES = 500;

export class SessionDO extends DurableObject<Env> {
  private sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.migrate();
  }

  /** Schema, created once per object (IF NOT EXISTS: also after deleteAll). */
  private migrate(): void {
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS session (
        id TEXT PRIMARY KEY, data TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS activations (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, query TEXT NOT NULL, loaded TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS splices (prefix TEXT PRIMARY KEY, at INTEGER NOT NULL, data TEXT NOT NULL, seq INTEGER NOT NULL);`);
  }

  private row(): { data: string; created_at: number; last_used_at: number } | undefined {
    return this.sql.exec<{ data: string; created_at: number; last_used_at: number }>("SELECT data, created_at, last_used_at FROM session").toArray()[0];
  }

  private activationNames(): string[] {
    return this.sql.exec<{ name: string }>("SELECT name FROM activations ORDER BY seq").toArray().map((r) => r.name);
  }

  /** Create the session; false when this object already holds one (ids are never reused). */
  async create(init: SessionInit): Promise<SessionState | null> {
    if (this.row()) return null;
    const now = Date.now();
    this.sql.exec("INSERT INTO session (id, data, created_at, last_used_at, ttl_ms) VALUES (?, ?, ?, ?, ?)", init.id, JSON.stringify(init), now, now, init.ttlMs);
    await this.ctx.storage.setAlarm(now + init.ttlMs);
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
    return { ...init, activation: init.activation ?? "inject", activations: this.activationNames(), createdAt: r.created_at, lastUsedAt: now };
  }

  /**
   * Start a chat turn: the session and the stored splices whose prefix is one of `prefixes` (the
   * hashes of the client's history so far). Null if the session does not exist.
   */
  beginChat(prefixes: string[]): { state: SessionState; splices: Splice[] } | null {
    const state = this.get();
    if (!state) return null;
    const splices = this.sql
      .exec<{ data: string }>("SELECT data FROM splices WHERE prefix IN (SELECT value FROM json_each(?)) ORDER BY at", JSON.stringify(prefixes))
      .toArray()
      .map((r) => JSON.parse(r.data) as Splice);
    return { state, splices };
  }

  /** Remember what upstream saw in a turn that the client did not; the newest per prefix wins. */
  addSplice(splice: Splice): boolean {
    return this.ctx.storage.transactionSync(() => {
      if (!this.row()) return false;
      const seq = (this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM splices").one().n ?? 0) + 1;
      this.sql.exec("INSERT OR REPLACE INTO splices (prefix, at, data, seq) VALUES (?, ?, ?, ?)", splice.prefix, splice.at, JSON.stringify(splice), seq);
      // bounded: abandoned branches of edited histories must not grow a session without end
      this.sql.exec("DELETE FROM splices WHERE seq <= ?", seq - MAX_SPLICES);
      return true;
    });
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
   * and log the query. Null if the session does not exist.
   */
  activate(names: string[], query: string): ActivationResult | null {
    // one transaction: a failure part-way (storage error, reset) must not leave half an activation
    return this.ctx.storage.transactionSync(() => {
      const r = this.row();
      if (!r) return null;
      const core = new Set((JSON.parse(r.data) as SessionInit).coreTools);
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
      return { loaded, alreadyLoaded, activations: this.activationNames() };
    });
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

  /** Delete everything this session stored. False if there was nothing. */
  async remove(): Promise<boolean> {
    const existed = !!this.row();
    await this.ctx.storage.deleteAll();
    this.migrate();
    return existed;
  }

  async alarm(): Promise<void> {
    const r = this.sql.exec<{ last_used_at: number; ttl_ms: number }>("SELECT last_used_at, ttl_ms FROM session").toArray()[0];
    if (!r) return; // already deleted: nothing to do (alarms may fire more than once)
    const expires = r.last_used_at + r.ttl_ms;
    if (Date.now() >= expires) await this.remove();
    else await this.ctx.storage.setAlarm(expires);
  }
}
