// The session's own tables in its Durable Object's SQLite (schema.ts): the frozen fields and use
// times, the activations in order, the toolSearch event log, the chat endpoint's splices, and the
// audit rows written with them (audit-store.ts). Synchronous reads and writes only: the object
// (session-do.ts) owns transactions, alarms, RPC and calls in flight, and wraps each write here in
// the transaction it belongs to. Every reader answers undefined/null when there is no session, and
// touches no table while the schema does not exist (an object only probed must not get storage).

import { auditRow, eventId, type AuditInput } from "../core/audit.ts";
import type { ClientPlan } from "../core/client-tools.ts";
import type { Splice } from "../core/splice.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import { insertAudit } from "./audit-store.ts";
import type { SessionHistory, SessionInit, SessionState } from "./state.ts";

const MAX_SPLICES = 500;

type SessionRow = { data: string; created_at: number; last_used_at: number; ttl_ms: number };

/**
 * The session row as this instance last read or wrote it, with its data parsed (undefined: not
 * read since the last write that changes it). The object is the only writer of its storage, so
 * reads between writes need no query; a write drops the copy before it runs, so a transaction
 * that rolls back leaves nothing stale. Only `last_used_at` is updated in place, after its UPDATE.
 */
type Held = { row: SessionRow; init: SessionInit } | null;

export class SessionStore {
  private seq = 0;
  private held: Held | undefined;
  private readonly sql: SqlStorage;
  /** whether the tables exist (the object keeps the flag: creation and deleteAll change it) */
  private readonly exists: () => boolean;
  /** the tenant of sessions stored before SessionInit had one (from the object's name) */
  private readonly nameTenant: string;

  constructor(sql: SqlStorage, exists: () => boolean, nameTenant: string) {
    this.sql = sql;
    this.exists = exists;
    this.nameTenant = nameTenant;
  }

  row(): SessionRow | undefined {
    return this.hold()?.row;
  }

  /** The frozen fields, parsed once per write (callers read them and never change them). */
  init(): SessionInit | null {
    return this.hold()?.init ?? null;
  }

  private hold(): Held {
    if (!this.exists()) {
      this.held = undefined; // no tables (deleteAll dropped them): nothing to hold
      return null;
    }
    if (this.held === undefined) {
      const row = this.sql.exec<SessionRow>("SELECT data, created_at, last_used_at, ttl_ms FROM session").toArray()[0];
      this.held = row ? { row, init: JSON.parse(row.data) as SessionInit } : null;
    }
    return this.held;
  }

  /** Read the row from storage at its next use (the alarm decides expiry from what is stored). */
  reload(): void {
    this.held = undefined;
  }

  /** `last_used_at` is now `at` (its UPDATE has run). */
  private used(at: number): void {
    if (this.held) this.held.row = { ...this.held.row, last_used_at: at };
  }

  activationNames(): string[] {
    return this.sql
      .exec<{ name: string }>("SELECT name FROM activations ORDER BY seq")
      .toArray()
      .map((r) => r.name);
  }

  insert(init: SessionInit, now: number): void {
    this.held = undefined;
    this.sql.exec(
      "INSERT INTO session (id, data, created_at, last_used_at, ttl_ms) VALUES (?, ?, ?, ?, ?)",
      init.id,
      JSON.stringify(init),
      now,
      now,
      init.ttlMs,
    );
  }

  /** Mark the session used now (a call is use). */
  touch(now = Date.now()): void {
    this.sql.exec("UPDATE session SET last_used_at = ?", now);
    this.used(now);
  }

  /** The session, marked used now; null if there is none. */
  use(): SessionState | null {
    const held = this.hold();
    if (!held) return null;
    const r = held.row;
    const now = Date.now();
    this.touch(now);
    const init = held.init;
    // sessions stored before activation modes existed are inject sessions
    return {
      ...init,
      activation: init.activation ?? "inject",
      activations: this.activationNames(),
      createdAt: r.created_at,
      lastUsedAt: now,
    };
  }

  /** The stored splices whose prefix is one of `prefixes`, oldest first. */
  splices(prefixes: string[]): Splice[] {
    return this.sql
      .exec<{ data: string }>(
        "SELECT data FROM splices WHERE prefix IN (SELECT value FROM json_each(?)) ORDER BY at",
        JSON.stringify(prefixes),
      )
      .toArray()
      .map((r) => JSON.parse(r.data) as Splice);
  }

  /** Store a splice (the newest per prefix wins); call inside a transaction. */
  addSplice(splice: Splice): void {
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
  }

  setClientTools(init: SessionInit, plan: ClientPlan): void {
    this.held = undefined;
    this.sql.exec("UPDATE session SET data = ?", JSON.stringify({ ...init, clientTools: plan }));
  }

  /** Audit rows for `events` (call inside the transaction that writes the state they describe). */
  writeAudit(init: Pick<SessionInit, "id" | "tenant" | "user">, events: readonly AuditInput[], at = Date.now()): string[] {
    const owner = { tenant: init.tenant ?? this.nameTenant, user: init.user };
    const rows = events.map((e) => auditRow(e, at, eventId(at, this.seq++, crypto.getRandomValues(new Uint8Array(6))), owner, init.id));
    insertAudit(this.sql, rows);
    return rows.map((r) => r.id);
  }

  /**
   * Activate `names` not yet loaded (core tools count as loaded), in order, log the query, and
   * write the audit rows (search, activations, denials); call inside a transaction. Null: no session.
   */
  activate(
    names: string[],
    query: string,
    audit: ActivationAudit,
    digest: { argsDigest: string; argsBytes: number; canonical: string },
  ): ActivationResult | null {
    const init = this.init();
    if (!init) return null;
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
    this.held = undefined; // in a transaction that may roll back: read again
    this.sql.exec("UPDATE session SET last_used_at = ?", now);
    const via = audit.via ?? "rest";
    const client = audit.client ?? null;
    const events: AuditInput[] = [];
    if (!audit.load) {
      const detail = `${audit.matched ?? names.length} matched; loaded ${loaded.length}, already loaded ${alreadyLoaded.length}`;
      const stored = init.storeArguments === true ? digest.canonical : null;
      events.push({ type: "search", tool: null, outcome: "ok", via, client, ...digest, detail, arguments: stored });
    }
    for (const name of loaded) events.push({ type: "activation", tool: name, outcome: "ok", via, client });
    for (const d of audit.denied ?? []) events.push({ type: "denial", tool: d.name, outcome: "denied", via, client, detail: d.reason });
    this.writeAudit(init, events, now);
    return { loaded, alreadyLoaded, activations: this.activationNames() };
  }

  events(): Array<{ at: number; query: string; loaded: string[] }> {
    if (!this.exists()) return [];
    return this.sql
      .exec<{ at: number; query: string; loaded: string }>("SELECT at, query, loaded FROM events ORDER BY seq")
      .toArray()
      .map((e) => ({ at: e.at, query: e.query, loaded: JSON.parse(e.loaded) as string[] }));
  }

  /** Activations with their times, every toolSearch, and the splices in write order; null: no session. */
  history(): SessionHistory | null {
    if (!this.row()) return null;
    const activations = this.sql.exec<{ name: string; at: number }>("SELECT name, at FROM activations ORDER BY seq").toArray();
    const splices = this.sql
      .exec<{ seq: number; data: string }>("SELECT seq, data FROM splices ORDER BY seq")
      .toArray()
      .map((r) => ({ seq: r.seq, ...(JSON.parse(r.data) as Splice) }));
    return { activations, searches: this.events(), splices };
  }

  /** Drop search events older than `cutoff` (ms since 1970): QUOTAS.auditRetentionDays. */
  pruneEvents(cutoff: number): void {
    if (this.exists()) this.sql.exec("DELETE FROM events WHERE at < ?", cutoff);
  }

  /** Forget the session's own tables (the object clears its other stores with it). */
  clear(): void {
    this.held = undefined;
    for (const t of ["session", "activations", "events", "splices"]) this.sql.exec(`DELETE FROM ${t}`);
  }
}
