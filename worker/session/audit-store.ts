// Where audit rows live. In the session object's SQLite (`audit`, written by the session in the
// same transaction as the state an event describes; `delivered = 0` rows are the outbox) and in
// D1 (`audit_events`, worker/migrations/), where a tenant's events are queryable across sessions.
// The session's own rows also say which calls the Worker ran (workerCalls).
// Delivery (Outbox) is INSERT OR IGNORE by event id: an alarm that fires twice, or a batch retried
// after a failure that had in fact committed, never duplicates a row. A call's row is written
// ahead with outcome `started` and completed in place; only completed rows are delivered, so D1
// never holds a row that will still change (a `started` row left by a restart becomes `unknown`).

import { AUDIT_COLUMNS, auditPage, auditWhere, type AuditQuery, type AuditRow } from "../core/audit.ts";

export const AUDIT_SCHEMA = `
  CREATE TABLE IF NOT EXISTS audit (
    id TEXT PRIMARY KEY, at INTEGER NOT NULL, tenant TEXT NOT NULL, session TEXT NOT NULL, type TEXT NOT NULL,
    tool TEXT, server TEXT, decision TEXT NOT NULL, outcome TEXT NOT NULL, duration_ms INTEGER NOT NULL,
    args_digest TEXT, args_bytes INTEGER NOT NULL, result_bytes INTEGER NOT NULL, detail TEXT, arguments TEXT,
    via TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0, client TEXT, user TEXT, run TEXT, approval TEXT);
  CREATE INDEX IF NOT EXISTS audit_outbox ON audit (delivered, id);`;

const COLS = AUDIT_COLUMNS.join(", ");
const MARKS = AUDIT_COLUMNS.map(() => "?").join(", ");

export function insertAudit(sql: SqlStorage, rows: readonly AuditRow[]): void {
  for (const r of rows) sql.exec(`INSERT INTO audit (${COLS}) VALUES (${MARKS})`, ...AUDIT_COLUMNS.map((c) => r[c]));
}

/** One session's events, newest first (answered from the session's own storage). */
export function listSessionAudit(sql: SqlStorage, q: AuditQuery) {
  const { where, binds } = auditWhere(q);
  const rows = sql
    .exec<AuditRow & Record<string, SqlStorageValue>>(
      `SELECT ${COLS} FROM audit ${where} ORDER BY id DESC LIMIT ?`,
      ...(binds as SqlStorageValue[]),
      q.limit + 1,
    )
    .toArray();
  return auditPage(rows, q.limit);
}

/** The calls the Worker ran for a session (any execution mode: a REST call, an edge chat round, the MCP gateway), per surface. */
export function workerCalls(sql: SqlStorage): Array<{ via: string; calls: number }> {
  // invalid arguments never reach a server; denials are their own type
  return sql
    .exec<{ via: string; calls: number }>(
      "SELECT via, COUNT(*) AS calls FROM audit WHERE type = 'call' AND outcome != 'invalid_arguments' GROUP BY via ORDER BY via",
    )
    .toArray();
}

function undelivered(sql: SqlStorage, limit: number): AuditRow[] {
  return sql
    .exec<AuditRow & Record<string, SqlStorageValue>>(
      `SELECT ${COLS} FROM audit WHERE delivered = 0 AND outcome != 'started' ORDER BY id LIMIT ?`,
      limit,
    )
    .toArray();
}

/** Drop rows D1 already has that are older than `cutoff` (ms since 1970): QUOTAS.auditRetentionDays. */
export function pruneDelivered(sql: SqlStorage, cutoff: number): void {
  sql.exec("DELETE FROM audit WHERE delivered = 1 AND at < ?", cutoff);
}

/** Whether any row waits for D1 (cheaper than its size: the index stops at the first). */
export function outboxWaits(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM audit WHERE delivered = 0 AND outcome != 'started' LIMIT 1").toArray().length > 0;
}

export function outboxSize(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit WHERE delivered = 0 AND outcome != 'started'").one().n;
}

/** Complete a call's `started` row with how it ended. */
export function completeAudit(
  sql: SqlStorage,
  id: string,
  end: { outcome: string; durationMs: number; resultBytes?: number; detail?: string | null },
): void {
  sql.exec(
    "UPDATE audit SET outcome = ?, duration_ms = ?, result_bytes = ?, detail = ? WHERE id = ? AND outcome = 'started'",
    end.outcome,
    Math.max(0, Math.round(end.durationMs)),
    end.resultBytes ?? 0,
    end.detail ? end.detail.slice(0, 500) : null,
    id,
  );
}

/** Rows still `started` that no live call owns: their answer was lost (the object restarted). */
export function markUnknown(sql: SqlStorage, live: ReadonlySet<string>): number {
  return sql.exec(
    "UPDATE audit SET outcome = 'unknown', detail = ? WHERE outcome = 'started' AND id NOT IN (SELECT value FROM json_each(?))",
    "the session restarted while the call was in flight: whether the server ran it is not known",
    JSON.stringify([...live]),
  ).rowsWritten;
}

function markDelivered(sql: SqlStorage, ids: readonly string[]): void {
  sql.exec("UPDATE audit SET delivered = 1 WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
}

/** Write rows to D1 in one batch (one implicit transaction); duplicates are ignored. */
export async function deliver(db: D1Database, rows: readonly AuditRow[]): Promise<void> {
  if (!rows.length) return;
  const stmt = db.prepare(`INSERT OR IGNORE INTO audit_events (${COLS}) VALUES (${MARKS})`);
  await db.batch(rows.map((r) => stmt.bind(...AUDIT_COLUMNS.map((c) => r[c]))));
}

/** A tenant's events across sessions, newest first. */
export async function queryTenantAudit(db: D1Database, tenant: string, q: AuditQuery) {
  const { where, binds } = auditWhere(q, tenant);
  const { results } = await db
    .prepare(`SELECT ${COLS} FROM audit_events ${where} ORDER BY id DESC LIMIT ?`)
    .bind(...binds, q.limit + 1)
    .all<AuditRow>();
  return auditPage(results, q.limit);
}

const OUTBOX_BATCH = 100;
const RETRY_MAX_MS = 60_000;

/**
 * A session object's delivery of its undelivered rows to D1. `kick()` after writing rows: one
 * delivery runs at a time, and a row written while it runs is picked up by one more pass. A
 * failure doubles `retryMs` (1 s to 60 s) for the object's alarm; `after` reschedules that alarm.
 */
export class Outbox {
  retryMs = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private readonly sql: SqlStorage;
  private readonly db: D1Database;
  private readonly after: () => Promise<void>;
  /** keeps the object alive while a delivery runs */
  private readonly keepAlive: Pick<DurableObjectState, "waitUntil">;

  constructor(sql: SqlStorage, db: D1Database, after: () => Promise<void>, keepAlive: Pick<DurableObjectState, "waitUntil">) {
    this.sql = sql;
    this.db = db;
    this.after = after;
    this.keepAlive = keepAlive;
  }

  kick(): Promise<void> {
    this.again = true;
    if (!this.running) {
      const run = async () => {
        try {
          while (this.again) {
            this.again = false;
            await this.pass();
          }
        } finally {
          this.running = null; // in the same turn as the last check of `again`: no wake-up is lost
        }
      };
      this.running = run();
      this.keepAlive.waitUntil(this.running);
    }
    return this.running;
  }

  private async pass(): Promise<void> {
    try {
      for (let rows = undelivered(this.sql, OUTBOX_BATCH); rows.length; rows = undelivered(this.sql, OUTBOX_BATCH)) {
        await deliver(this.db, rows);
        markDelivered(
          this.sql,
          rows.map((r) => r.id),
        );
      }
      this.retryMs = 0;
    } catch (e) {
      this.retryMs = Math.min(RETRY_MAX_MS, Math.max(1000, this.retryMs * 2));
      console.warn(`audit delivery to D1 failed (${outboxSize(this.sql)} rows wait; retry in ${this.retryMs} ms): ${(e as Error).message}`);
    }
    await this.after();
  }
}
