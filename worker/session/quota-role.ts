// The quota role of SessionDO: the Durable Object named `quota:<tenant>/<key id>` counts one API
// key's requests, upstream calls and new sessions in fixed windows (a minute, an hour), in its SQLite. One object
// per key is the platform's own counter: every isolate's units for that key come from it, so no
// window ever grants more than its limit. take() grants a block of units (an isolate's lease,
// quota-client.ts) in one synchronous read-and-write, so concurrent takers can never both get the
// last unit. The object keeps its storage only while
// a window is open: its alarm, set to the end of the latest window, drops it (session-do.ts).
// Its narrow RPC interface is take(); the Worker side is quota-client.ts.

import { RpcTarget } from "cloudflare:workers";

export type QuotaKind = "requests" | "upstream" | "sessions";

/** units granted (0: refused), how many the window had used before, and when it ends (ms since 1970) */
export type QuotaAnswer = { granted: number; used: number; ends: number };

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
   * Take up to `want` units of `kind` from the window of `windowMs` that `now` falls in, never past
   * `limit` in it, and none unless at least `atLeast` are left (a batch is admitted whole or not at
   * all). A refusal (0 granted) takes nothing: a client that keeps retrying early does not push its
   * own window back.
   */
  async take(kind: QuotaKind, limit: number, windowMs: number, want = 1, now = Date.now(), atLeast = 1): Promise<QuotaAnswer> {
    const sql = this.table();
    const started = now - (now % windowMs);
    const ends = started + windowMs;
    const answer = this.storage.transactionSync((): QuotaAnswer => {
      const row = sql.exec<{ started: number; used: number }>("SELECT started, used FROM quota_windows WHERE kind = ?", kind).toArray()[0];
      const used = row && row.started === started ? row.used : 0;
      const left = Math.max(0, Math.min(want, limit - used));
      const granted = left >= atLeast ? left : 0;
      if (granted)
        sql.exec(
          "INSERT OR REPLACE INTO quota_windows (kind, started, ends, used) VALUES (?, ?, ?, ?)",
          kind,
          started,
          ends,
          used + granted,
        );
      return { granted, used, ends };
    });
    // the storage goes when the last open window ends (an alarm set later stays)
    this.alarmAt ??= (await this.storage.getAlarm()) ?? 0;
    if (this.alarmAt < ends) await this.storage.setAlarm((this.alarmAt = ends));
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
