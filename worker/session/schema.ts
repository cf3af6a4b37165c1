// A session object's SQLite schema. It is created with the session (create), never by a read: an
// object that is only asked about an id gets no tables. `hasSchema` is a read of sqlite_master.
// Tables: the session's frozen fields and use times, activations in order, the toolSearch log,
// the chat endpoint's splices, audit rows (audit-store.ts), kept-alive upstream MCP sessions
// (server-sessions.ts), stored Responses (response-store.ts) and the resource URIs the gateway
// handed out (resource-gate.ts). IF NOT EXISTS: also after deleteAll, and for tables a newer version adds.

import { AUDIT_SCHEMA } from "./audit-store.ts";
import { RESOURCE_LINKS_SCHEMA } from "./resource-gate.ts";
import { RESPONSES_SCHEMA } from "./response-store.ts";
import { SERVER_SESSIONS_SCHEMA } from "./server-sessions.ts";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS session (
    id TEXT PRIMARY KEY, data TEXT NOT NULL, created_at INTEGER NOT NULL, last_used_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS activations (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, query TEXT NOT NULL, loaded TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS splices (prefix TEXT PRIMARY KEY, at INTEGER NOT NULL, data TEXT NOT NULL, seq INTEGER NOT NULL);
  ${AUDIT_SCHEMA} ${SERVER_SESSIONS_SCHEMA} ${RESPONSES_SCHEMA} ${RESOURCE_LINKS_SCHEMA}`;

export function migrate(sql: SqlStorage): void {
  sql.exec(SCHEMA);
  // columns added after a table was first created (sessions stored before then)
  if (!sql.exec("SELECT 1 FROM pragma_table_info('audit') WHERE name = 'client'").toArray().length)
    sql.exec("ALTER TABLE audit ADD COLUMN client TEXT");
  if (!sql.exec("SELECT 1 FROM pragma_table_info('audit') WHERE name = 'user'").toArray().length)
    sql.exec("ALTER TABLE audit ADD COLUMN user TEXT");
  if (!sql.exec("SELECT 1 FROM pragma_table_info('audit') WHERE name = 'run'").toArray().length)
    sql.exec("ALTER TABLE audit ADD COLUMN run TEXT");
  if (!sql.exec("SELECT 1 FROM pragma_table_info('audit') WHERE name = 'approval'").toArray().length)
    sql.exec("ALTER TABLE audit ADD COLUMN approval TEXT");
}

export function hasSchema(sql: SqlStorage): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session'").toArray().length > 0;
}
