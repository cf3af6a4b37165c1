// The kept-alive MCP sessions a toolsearch session holds on its servers: one row per server, with
// the server's Mcp-Session-Id and the protocol version it negotiated, in the session object's
// SQLite. Replacing a row is check-and-set, since a call's await lets other calls of the same
// session in: only the session a call started from may be replaced by the one it ended in.

import type { UpstreamSession } from "./mcp-client.ts";

export const SERVER_SESSIONS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS upstream (server TEXT PRIMARY KEY, session_id TEXT NOT NULL, protocol TEXT NOT NULL, opened_at INTEGER NOT NULL);`;

type Row = { server: string; session_id: string; protocol: string };

export class ServerSessions {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** The stored session on `server`, or null when none was opened yet. */
  get(server: string): UpstreamSession | null {
    const r = this.sql.exec<Row>("SELECT server, session_id, protocol FROM upstream WHERE server = ?", server).toArray()[0];
    return r ? { sessionId: r.session_id, protocolVersion: r.protocol } : null;
  }

  /** Every stored session, to close them when the toolsearch session ends. */
  all(): Array<{ server: string } & UpstreamSession> {
    return this.sql
      .exec<Row>("SELECT server, session_id, protocol FROM upstream")
      .toArray()
      .map((r) => ({ server: r.server, sessionId: r.session_id, protocolVersion: r.protocol }));
  }

  /**
   * Store the session a call ran in, if it replaces `before` (another call may have stored one
   * meanwhile). True when `after` is (now) the stored session. `after` null with a `before`: the
   * server re-initialized without a session (it keeps none now, e.g. MCP 2026-07-28): forget it.
   */
  replace(server: string, before: UpstreamSession | null, after: UpstreamSession | null): boolean {
    if (!after && before) this.sql.exec("DELETE FROM upstream WHERE server = ? AND session_id = ?", server, before.sessionId);
    if (!after || after.sessionId === before?.sessionId) return true;
    const now = Date.now();
    if (before) {
      this.sql.exec(
        "UPDATE upstream SET session_id = ?, protocol = ?, opened_at = ? WHERE server = ? AND session_id = ?",
        after.sessionId,
        after.protocolVersion,
        now,
        server,
        before.sessionId,
      );
    } else {
      this.sql.exec(
        "INSERT INTO upstream (server, session_id, protocol, opened_at) VALUES (?, ?, ?, ?) ON CONFLICT (server) DO NOTHING",
        server,
        after.sessionId,
        after.protocolVersion,
        now,
      );
    }
    return this.get(server)?.sessionId === after.sessionId;
  }

  clear(): void {
    this.sql.exec("DELETE FROM upstream");
  }
}
