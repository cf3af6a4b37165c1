// The kept-alive MCP sessions a toolsearch session holds on its servers: one row per server, with
// the server's Mcp-Session-Id and the protocol version it negotiated, in the session object's
// SQLite. Replacing a row is check-and-set, since a call's await lets other calls of the same
// session in: only the session a call started from may be replaced by the one it ended in.
// A server that keeps no sessions (MCP 2026-07-28, or a stateless older one) has a row in
// `upstream_stateless` instead: what it speaks (and a 2026 server's server/discover result), so
// its next call is sent as such. Such a row has nothing to resume or close: all() leaves it out.

import type { UpstreamSession } from "./mcp-client.ts";

export const SERVER_SESSIONS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS upstream (server TEXT PRIMARY KEY, session_id TEXT NOT NULL, protocol TEXT NOT NULL, opened_at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS upstream_stateless (server TEXT PRIMARY KEY, protocol TEXT NOT NULL, discover TEXT, at INTEGER NOT NULL);`;

type Row = { server: string; session_id: string; protocol: string };

export class ServerSessions {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** The stored session on `server` (sessionId "": the server keeps none), or null when it was not called yet. */
  get(server: string): UpstreamSession | null {
    const r = this.sql.exec<Row>("SELECT server, session_id, protocol FROM upstream WHERE server = ?", server).toArray()[0];
    if (r) return { sessionId: r.session_id, protocolVersion: r.protocol };
    const s = this.sql
      .exec<{ protocol: string; discover: string | null }>("SELECT protocol, discover FROM upstream_stateless WHERE server = ?", server)
      .toArray()[0];
    return s ? { sessionId: "", protocolVersion: s.protocol, ...(s.discover ? { discover: s.discover } : {}) } : null;
  }

  /** Every stored session (with an id), to close them when the toolsearch session ends. */
  all(): Array<{ server: string } & UpstreamSession> {
    return this.sql
      .exec<Row>("SELECT server, session_id, protocol FROM upstream")
      .toArray()
      .map((r) => ({ server: r.server, sessionId: r.session_id, protocolVersion: r.protocol }));
  }

  /**
   * Store the session a call ran in, if it replaces `before` (another call may have stored one
   * meanwhile). True when `after` is (now) the stored session. `after` without a session id: the
   * server keeps none (now, e.g. MCP 2026-07-28): forget `before`'s and note what the server speaks.
   */
  replace(server: string, before: UpstreamSession | null, after: UpstreamSession | null): boolean {
    const prev = before?.sessionId ? before : null;
    if ((!after || !after.sessionId) && prev)
      this.sql.exec("DELETE FROM upstream WHERE server = ? AND session_id = ?", server, prev.sessionId);
    if (after && !after.sessionId) {
      this.sql.exec(
        "INSERT OR REPLACE INTO upstream_stateless (server, protocol, discover, at) VALUES (?, ?, ?, ?)",
        server,
        after.protocolVersion,
        after.discover ?? null,
        Date.now(),
      );
      return true;
    }
    if (!after || after.sessionId === prev?.sessionId) return true;
    const now = Date.now();
    if (prev) {
      this.sql.exec(
        "UPDATE upstream SET session_id = ?, protocol = ?, opened_at = ? WHERE server = ? AND session_id = ?",
        after.sessionId,
        after.protocolVersion,
        now,
        server,
        prev.sessionId,
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
    this.sql.exec("DELETE FROM upstream_stateless");
  }
}
