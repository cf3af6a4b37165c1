// The quota role of SessionDO: the Durable Object named `quota:<tenant>/<key id>` counts one API
// key's requests and new sessions in fixed windows (a minute, an hour), in its SQLite. One object
// per key is the platform's own counter: every isolate's requests with that key reach it, so the
// count is exact, with no counter in isolate memory. take() is one synchronous read-and-write, so
// concurrent requests can never both take the last unit. The object keeps its storage only while
// a window is open: its alarm, set to the end of the latest window, drops it (session-do.ts).
// Its narrow RPC interface is take(); the Worker side is quota-client.ts.

import { RpcTarget } from "cloudflare:workers";

export type QuotaKind = "requests" | "sessions";

/** ok, or refused with the seconds until the window ends */
export type QuotaAnswer = { ok: true } | { ok: false; retryAfter: number; used: number };

const SCHEMA = `CREATE TABLE IF NOT EXISTS quota_windows (kind TEXT PRIMARY KEY, started INTEGER NOT NULL, ends INTEGER NOT NULL, used INTEGER NOT NULL);`;

export class QuotaRole extends RpcTarget {
  private readonly storage: DurableObjectStorage;
  private ready = false;
  /** the alarm this instance set (undefined: not known since it started) */
  private alarmAt: number | undefined;

  constructor(storage: DurableObjectStorage) {
    super();
    this.storage = storage;
  }

  /** The object's name says its role: `quota:<tenant>/<key id>`. */
  static is(name: string | undefined): boolean {
    return !!name?.startsWith("quota:");
  }

  private table(): SqlStorage {
    if (!this.ready) this.storage.sql.exec(SCHEMA);
    this.ready = true;
    return this.storage.sql;
  }

  /**
   * Take one unit of `kind` from the window of `windowMs` that `now` falls in, if fewer than
   * `limit` were taken in it. A refusal takes nothing (a client that keeps retrying early does not
   * push its own window back).
   */
  async take(kind: QuotaKind, limit: number, windowMs: number, now = Date.now()): Promise<QuotaAnswer> {
    const sql = this.table();
    const started = now - (now % windowMs);
    const answer = this.storage.transactionSync((): QuotaAnswer => {
      const row = sql.exec<{ started: number; used: number }>("SELECT started, used FROM quota_windows WHERE kind = ?", kind).toArray()[0];
      const used = row && row.started === started ? row.used : 0;
      if (used >= limit) return { ok: false, retryAfter: (started + windowMs - now) / 1000, used };
      sql.exec(
        "INSERT OR REPLACE INTO quota_windows (kind, started, ends, used) VALUES (?, ?, ?, ?)",
        kind,
        started,
        started + windowMs,
        used + 1,
      );
      return { ok: true };
    });
    // the storage goes when the last open window ends (an alarm set later stays)
    const end = started + windowMs;
    this.alarmAt ??= (await this.storage.getAlarm()) ?? 0;
    if (this.alarmAt < end) await this.storage.setAlarm((this.alarmAt = end));
    return answer;
  }

  /** The alarm: drop the storage if every window has ended, else wake again when the last one does. */
  async expire(now = Date.now()): Promise<void> {
    const open = this.table().exec<{ ends: number | null }>("SELECT MAX(ends) AS ends FROM quota_windows WHERE ends > ?", now).one().ends;
    if (open) return void (await this.storage.setAlarm((this.alarmAt = open)));
    this.ready = false;
    this.alarmAt = undefined;
    await this.storage.deleteAll();
  }
}
