// A principal's upstream accounts in its own Durable Object's SQLite (principal-role.ts): per
// server what was learned of its authorization (metadata, plain) and the client registration
// (sealed), the connection (the grant, sealed; scopes and times plain, for GET /v1/connections),
// and the connect links handed out (by SHA-256 digest only: a link is a bearer capability) with
// the authorization flow each started (its state's digest, the PKCE verifier sealed).
// Synchronous reads and writes; tables are made on the first write, so a principal that only
// asked has no storage.

import type { ServerAuth } from "./oauth.ts";

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS account_servers (server TEXT PRIMARY KEY, auth TEXT NOT NULL, client TEXT NOT NULL, at INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS connections (
    server TEXT PRIMARY KEY, sealed TEXT NOT NULL, scopes TEXT, connected_at INTEGER NOT NULL, expires_at INTEGER, refresh_at INTEGER);
  CREATE TABLE IF NOT EXISTS connect_links (
    digest TEXT PRIMARY KEY, server TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
    opened_at INTEGER, flow TEXT UNIQUE, verifier TEXT, finished_at INTEGER);`;

export interface ConnectionRow {
  server: string;
  sealed: string;
  scopes: string | null;
  connected_at: number;
  expires_at: number | null;
  refresh_at: number | null;
}

export interface LinkRow {
  digest: string;
  server: string;
  expires_at: number;
  opened_at: number | null;
  /** the digest of the flow's state nonce */
  flow: string | null;
  verifier: string | null;
  finished_at: number | null;
}

/** at most this many links kept per principal (each call that needs connecting makes one) */
const MAX_LINKS = 50;

export class PrincipalStore {
  private readonly sql: SqlStorage;
  private made: boolean;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    this.made = sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'connections'").toArray().length > 0;
  }

  private write(): SqlStorage {
    if (!this.made) this.sql.exec(SCHEMA);
    this.made = true;
    return this.sql;
  }

  connection(server: string): ConnectionRow | null {
    if (!this.made) return null;
    return (
      this.sql.exec<ConnectionRow & Record<string, SqlStorageValue>>("SELECT * FROM connections WHERE server = ?", server).toArray()[0] ??
      null
    );
  }

  connections(): ConnectionRow[] {
    if (!this.made) return [];
    return this.sql.exec<ConnectionRow & Record<string, SqlStorageValue>>("SELECT * FROM connections ORDER BY server").toArray();
  }

  putConnection(row: ConnectionRow): void {
    this.write().exec(
      "INSERT OR REPLACE INTO connections (server, sealed, scopes, connected_at, expires_at, refresh_at) VALUES (?, ?, ?, ?, ?, ?)",
      row.server,
      row.sealed,
      row.scopes,
      row.connected_at,
      row.expires_at,
      row.refresh_at,
    );
  }

  dropConnection(server: string): boolean {
    if (!this.made) return false;
    return this.sql.exec("DELETE FROM connections WHERE server = ?", server).rowsWritten > 0;
  }

  serverAuth(server: string): { auth: ServerAuth; client: string } | null {
    if (!this.made) return null;
    const r = this.sql
      .exec<{ auth: string; client: string }>("SELECT auth, client FROM account_servers WHERE server = ?", server)
      .toArray()[0];
    return r ? { auth: JSON.parse(r.auth) as ServerAuth, client: r.client } : null;
  }

  /** The issuer each server's recorded metadata names (the pins of issuer-pin.ts). */
  issuers(): Array<{ server: string; issuer: string }> {
    if (!this.made) return [];
    return this.sql
      .exec<{ server: string; auth: string }>("SELECT server, auth FROM account_servers")
      .toArray()
      .map((r) => ({ server: r.server, issuer: (JSON.parse(r.auth) as ServerAuth).metadata.issuer }));
  }

  putServerAuth(server: string, auth: ServerAuth, sealedClient: string): void {
    this.write().exec(
      "INSERT OR REPLACE INTO account_servers (server, auth, client, at) VALUES (?, ?, ?, ?)",
      server,
      JSON.stringify(auth),
      sealedClient,
      Date.now(),
    );
  }

  addLink(digest: string, server: string, now: number, ttlMs: number): void {
    const sql = this.write();
    sql.exec("DELETE FROM connect_links WHERE expires_at < ?", now - ttlMs); // kept a while, to say "expired"
    sql.exec("INSERT INTO connect_links (digest, server, created_at, expires_at) VALUES (?, ?, ?, ?)", digest, server, now, now + ttlMs);
    sql.exec(
      "DELETE FROM connect_links WHERE digest NOT IN (SELECT digest FROM connect_links ORDER BY created_at DESC LIMIT ?)",
      MAX_LINKS,
    );
  }

  link(digest: string): LinkRow | null {
    if (!this.made) return null;
    return (
      this.sql.exec<LinkRow & Record<string, SqlStorageValue>>("SELECT * FROM connect_links WHERE digest = ?", digest).toArray()[0] ?? null
    );
  }

  linkByFlow(flow: string): LinkRow | null {
    if (!this.made) return null;
    return (
      this.sql.exec<LinkRow & Record<string, SqlStorageValue>>("SELECT * FROM connect_links WHERE flow = ?", flow).toArray()[0] ?? null
    );
  }

  /** Mark a link opened (single use); false when it was opened already. */
  openLink(digest: string, now: number): boolean {
    return this.write().exec("UPDATE connect_links SET opened_at = ? WHERE digest = ? AND opened_at IS NULL", now, digest).rowsWritten > 0;
  }

  /** Every link and flow for `server`, opened or not (DELETE /v1/connections: none of them connects after it). */
  dropLinks(server: string): number {
    if (!this.made) return 0;
    return this.sql.exec("DELETE FROM connect_links WHERE server = ?", server).rowsWritten;
  }

  setFlow(digest: string, flow: string, sealedVerifier: string): void {
    this.write().exec("UPDATE connect_links SET flow = ?, verifier = ? WHERE digest = ?", flow, sealedVerifier, digest);
  }

  /** Mark a flow finished (its code is exchanged once); false when it was finished already. */
  finishFlow(flow: string, now: number): boolean {
    return (
      this.write().exec("UPDATE connect_links SET finished_at = ?, verifier = NULL WHERE flow = ? AND finished_at IS NULL", now, flow)
        .rowsWritten > 0
    );
  }
}
