// A principal's approvals in its own Durable Object's SQLite (approval-role.ts): one row per call
// that asked a person for a yes, bound to the session, the tool and the digest of its arguments.
// A row is `pending` until decided (`approved` or `denied`) or past `expires_at`; `used_at` marks
// the call a yes released, `reported_at` a denial the model was told of. Synchronous reads and
// writes; the table is made on the first write, so a principal that only asked has no storage.

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS approvals (
    id TEXT PRIMARY KEY, session TEXT NOT NULL, tool TEXT NOT NULL, server TEXT NOT NULL, digest TEXT NOT NULL,
    summary TEXT NOT NULL, rule TEXT NOT NULL, remember TEXT NOT NULL, status TEXT NOT NULL,
    created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, decided_at INTEGER, decided_by TEXT, how TEXT,
    reason TEXT, used_at INTEGER, reported_at INTEGER);
  CREATE INDEX IF NOT EXISTS approvals_call ON approvals (session, tool, digest);`;

export type ApprovalStatus = "pending" | "approved" | "denied";

export type ApprovalRow = {
  id: string;
  session: string;
  tool: string;
  server: string;
  digest: string;
  summary: string;
  rule: string;
  remember: string;
  status: ApprovalStatus;
  created_at: number;
  expires_at: number;
  decided_at: number | null;
  decided_by: string | null;
  how: string | null;
  reason: string | null;
  used_at: number | null;
  reported_at: number | null;
};

export type NewApproval = Pick<ApprovalRow, "id" | "session" | "tool" | "server" | "digest" | "summary" | "rule" | "remember">;

/** rows kept per principal: past it the oldest decided or expired ones go first */
const MAX_ROWS = 500;

export class ApprovalStore {
  private readonly sql: SqlStorage;
  private made = false;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  private exists(): boolean {
    if (!this.made) this.made = this.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'approvals'").toArray().length > 0;
    return this.made;
  }

  private rows(where: string, ...binds: unknown[]): ApprovalRow[] {
    if (!this.exists()) return [];
    return this.sql.exec<ApprovalRow>(`SELECT * FROM approvals WHERE ${where}`, ...binds).toArray();
  }

  get(id: string): ApprovalRow | undefined {
    return this.rows("id = ?", id)[0];
  }

  /** A yes that covers this call now: the same call once (`call`), the tool in the session, or the tool for N minutes. */
  grant(session: string, tool: string, digest: string, now: number): ApprovalRow | undefined {
    const approved = this.rows("status = 'approved' AND tool = ? ORDER BY decided_at DESC LIMIT 50", tool);
    return approved.find((r) => {
      if (r.remember === "call") return r.session === session && r.digest === digest && r.used_at === null;
      if (r.remember === "session") return r.session === session;
      const minutes = Number(/^(\d+)m$/.exec(r.remember)?.[1] ?? 0);
      return (r.decided_at ?? 0) + minutes * 60_000 > now;
    });
  }

  /** A denial of this very call the model has not been told of yet. */
  unreportedDenial(session: string, tool: string, digest: string): ApprovalRow | undefined {
    return this.rows("session = ? AND tool = ? AND digest = ? AND status = 'denied' AND reported_at IS NULL", session, tool, digest)[0];
  }

  /** The pending request for this very call, if one is still open. */
  pending(session: string, tool: string, digest: string, now: number): ApprovalRow | undefined {
    return this.rows("session = ? AND tool = ? AND digest = ? AND status = 'pending' AND expires_at > ?", session, tool, digest, now)[0];
  }

  /** Open requests, newest first. */
  open(now: number): ApprovalRow[] {
    return this.rows("status = 'pending' AND expires_at > ? ORDER BY created_at DESC LIMIT 100", now);
  }

  add(row: NewApproval, now: number, ttlMs: number): void {
    this.sql.exec(SCHEMA);
    this.made = true;
    this.sql.exec(
      `INSERT INTO approvals (id, session, tool, server, digest, summary, rule, remember, status, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      row.id,
      row.session,
      row.tool,
      row.server,
      row.digest,
      row.summary,
      row.rule,
      row.remember,
      now,
      now + ttlMs,
    );
    const over = (this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM approvals").one().n as number) - MAX_ROWS;
    if (over > 0)
      this.sql.exec(
        "DELETE FROM approvals WHERE id IN (SELECT id FROM approvals ORDER BY (status = 'pending' AND expires_at > ?), created_at LIMIT ?)",
        now,
        over,
      );
  }

  /** Decide a pending, unexpired request; false when it is not one (the caller says why). */
  decide(id: string, d: { status: "approved" | "denied"; by: string; how: string; reason: string | null }, now: number): boolean {
    if (!this.exists()) return false;
    const changed = this.sql.exec(
      "UPDATE approvals SET status = ?, decided_at = ?, decided_by = ?, how = ?, reason = ? WHERE id = ? AND status = 'pending' AND expires_at > ?",
      d.status,
      now,
      d.by,
      d.how,
      d.reason,
      id,
      now,
    ).rowsWritten;
    return changed > 0;
  }

  markUsed(id: string, now: number): void {
    this.sql.exec("UPDATE approvals SET used_at = coalesce(used_at, ?) WHERE id = ?", now, id);
  }

  markReported(id: string, now: number): void {
    this.sql.exec("UPDATE approvals SET reported_at = ? WHERE id = ?", now, id);
  }
}
