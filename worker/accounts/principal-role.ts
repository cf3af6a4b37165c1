// The principal role of SessionDO: the Durable Object named `principal:<tenant>/<user>` keeps that
// principal's upstream accounts (principal-store.ts), outliving every session. Its narrow RPC
// interface: a token for a server (refreshed before expiry; concurrent callers share one
// refresh), what to do after the server refused one (refresh once, else the connection is
// dropped), the connections (GET/DELETE /v1/connections), and the two halves of connecting: a
// link opened (single use, expiring) sends the browser to the authorization server; its callback
// exchanges the code. Only the connect page's POST starts a flow, after the Worker checked that
// the browser holds a key of this principal (routes/connect.ts); the flow's state is signed.
// Disconnecting drops every link and flow of the server. Values sealed with the previous key
// during a rotation are sealed again with the current one when read. Answers never carry a token
// except token()'s own, to the session object that sends it upstream; errors carry no token
// (they name the server and the step).

import { RpcTarget } from "cloudflare:workers";
import { sha256Hex } from "../core/canonical.ts";
import { DEFAULT_SERVER_TIMEOUT_MS, type ServerConfig } from "../core/servers.ts";
import { settings } from "../settings.ts";
import { callbackIssRefusal, issuerRefusal, pinsFor } from "./issuer-pin.ts";
import { OAuthStepError, type StepContext } from "./oauth-fetch.ts";
import { authorizationUrl, clientFor, discover, exchange, refresh, revoke, type ClientInfo, type Grant, type ServerAuth } from "./oauth.ts";
import { flowState, flowText, linkUrl, principalOfName, randomToken, type Principal } from "./principal-names.ts";
import { PrincipalStore } from "./principal-store.ts";
import { openEither, seal, sealingKeys, sign, type SealingKeys } from "./sealed.ts";

/** `until`: when the token is due for refresh (ms since 1970; absent: no lifetime given) */
export type TokenAnswer = { kind: "token"; token: string; until?: number } | { kind: "connect"; link: string };

export interface ConnectionInfo {
  server: string;
  scopes: string[];
  connectedAt: string;
  expiresAt: string | null;
}

/** `flow`: the nonce the browser's cookie must carry back to the callback */
export type LinkOpened = { ok: true; location: string; flow: string } | { ok: false; reason: string };
export type FlowFinished = { ok: true; server: string } | { ok: false; reason: string };

/** refresh this long before expiry, at most half the token's lifetime */
const REFRESH_AHEAD_MS = 60_000;

export class PrincipalRole extends RpcTarget {
  private readonly store: PrincipalStore;
  private readonly env: Env;
  private readonly principal: Principal;
  private readonly refreshing = new Map<string, Promise<TokenAnswer>>();

  /** The role of the object named `name`; a session object (any other name) has none. */
  static of(name: string | undefined, sql: SqlStorage, env: Env): PrincipalRole {
    const p = principalOfName(name);
    if (!p) throw new Error("a session object has no principal role");
    return new PrincipalRole(sql, env, p);
  }

  private constructor(sql: SqlStorage, env: Env, principal: Principal) {
    super();
    this.store = new PrincipalStore(sql);
    this.env = env;
    this.principal = principal;
  }

  private server(name: string): ServerConfig {
    const server = settings(this.env).servers.get(name);
    if (!server?.oauth) throw new Error(`SERVERS: ${name} is not a server with "auth": "oauth"`);
    return server;
  }

  private keys(): SealingKeys {
    return sealingKeys(settings(this.env).secret);
  }

  /** an OAuth step's server and deadline (oauth-fetch.ts); a server since removed from SERVERS gets the default */
  private step(server: string): StepContext {
    return { server, timeoutMs: settings(this.env).servers.get(server)?.timeoutMs ?? DEFAULT_SERVER_TIMEOUT_MS };
  }

  private key(): string {
    return this.keys().current;
  }

  private where(server: string, kind: string): string {
    return `${this.principal.tenant}/${this.principal.user}\u0000${server}\u0000${kind}`;
  }

  /** A new connect link for `server` (the answer to a call that needs the user's authorization). */
  private async link(server: string, origin: string): Promise<TokenAnswer> {
    const secret = randomToken();
    this.store.addLink(await sha256Hex(secret), server, Date.now(), settings(this.env).connectLinkTtlMs);
    return { kind: "connect", link: linkUrl(origin, server, this.principal, secret) };
  }

  private async grant(server: string): Promise<Grant | null> {
    const row = this.store.connection(server);
    const opened = row && (await openEither<Grant>(this.keys(), this.where(server, "grant"), row.sealed));
    if (!row || !opened) return null;
    // sealed with the previous key: seal it again with the current one (rotation, R2-L5)
    if (opened.stale) this.store.putConnection({ ...row, sealed: await seal(this.key(), this.where(server, "grant"), opened.value) });
    return opened.value;
  }

  private async saveGrant(server: string, grant: Grant, connectedAt: number): Promise<void> {
    const life = grant.expiresAt ? grant.expiresAt - grant.issuedAt : null;
    this.store.putConnection({
      server,
      sealed: await seal(this.key(), this.where(server, "grant"), grant),
      scopes: grant.scope ?? null,
      connected_at: connectedAt,
      expires_at: grant.expiresAt ?? null,
      refresh_at: grant.expiresAt && life !== null ? grant.expiresAt - Math.min(REFRESH_AHEAD_MS, life / 2) : null,
    });
  }

  private async client(server: string): Promise<{ auth: ServerAuth; client: ClientInfo } | null> {
    const stored = this.store.serverAuth(server);
    const opened = stored && (await openEither<ClientInfo>(this.keys(), this.where(server, "client"), stored.client));
    if (!stored || !opened) return null;
    if (opened.stale) this.store.putServerAuth(server, stored.auth, await seal(this.key(), this.where(server, "client"), opened.value));
    return { auth: stored.auth, client: opened.value };
  }

  /** The user's access token for `server`, refreshed when due; a connect link when there is none. */
  async token(server: string, origin: string): Promise<TokenAnswer> {
    const row = this.store.connection(server);
    const grant = row && (await this.grant(server));
    if (!row || !grant) return this.link(server, origin);
    if (row.refresh_at !== null && Date.now() >= row.refresh_at) return this.refreshOnce(server, origin, grant.access_token);
    return { kind: "token", token: grant.access_token, ...(row.refresh_at !== null ? { until: row.refresh_at } : {}) };
  }

  /** The server refused `token` (401): a newer token if another call refreshed, else one refresh; else a connect link. */
  async rejected(server: string, token: string, origin: string): Promise<TokenAnswer> {
    const grant = await this.grant(server);
    if (grant && grant.access_token !== token) return { kind: "token", token: grant.access_token };
    return this.refreshOnce(server, origin, token);
  }

  /** The server refused a refreshed token too: forget the connection; the answer is a connect link. */
  async drop(server: string, origin: string): Promise<TokenAnswer> {
    this.store.dropConnection(server);
    return this.link(server, origin);
  }

  private refreshOnce(server: string, origin: string, stale: string): Promise<TokenAnswer> {
    let pending = this.refreshing.get(server);
    if (!pending) {
      pending = this.refreshNow(server, origin, stale).finally(() => this.refreshing.delete(server));
      this.refreshing.set(server, pending);
    }
    return pending;
  }

  private async refreshNow(server: string, origin: string, stale: string): Promise<TokenAnswer> {
    const [grant, reg] = await Promise.all([this.grant(server), this.client(server)]);
    if (grant && grant.access_token !== stale) return { kind: "token", token: grant.access_token };
    if (!grant || !reg) return this.drop(server, origin);
    const next = await refresh(this.step(server), reg.auth, reg.client, grant); // ends by the deadline: waiting calls fail with it
    if (next === "gone") return this.drop(server, origin);
    const row = this.store.connection(server);
    await this.saveGrant(server, { ...next, refresh_token: next.refresh_token ?? grant.refresh_token }, row?.connected_at ?? Date.now());
    const until = this.store.connection(server)?.refresh_at;
    return { kind: "token", token: next.access_token, ...(until ? { until } : {}) };
  }

  connections(): ConnectionInfo[] {
    return this.store.connections().map((r) => ({
      server: r.server,
      scopes: r.scopes ? r.scopes.split(" ").filter(Boolean) : [],
      connectedAt: new Date(r.connected_at).toISOString(),
      expiresAt: r.expires_at === null ? null : new Date(r.expires_at).toISOString(),
    }));
  }

  /** Forget the connection, and every link and flow for the server; revoke its tokens at the server (RFC 7009) where it offers that. */
  async disconnect(server: string): Promise<{ removed: boolean; revoked: boolean }> {
    const [grant, reg] = await Promise.all([this.grant(server), this.client(server)]);
    this.store.dropLinks(server);
    const removed = this.store.dropConnection(server);
    if (!removed || !grant || !reg) return { removed, revoked: false };
    const revoked = await revoke(this.step(server), reg.auth, reg.client, grant);
    return { removed, revoked };
  }

  /**
   * The connect page's POST, from a browser that proved it holds a key of this principal: where to
   * send it (the authorization server), once per link. A link for another server is refused; when
   * discovery or registration fails, the link stays usable.
   */
  async startFlow(secret: string, server: string, origin: string): Promise<LinkOpened> {
    const digest = await sha256Hex(secret);
    const link = this.store.link(digest);
    if (!link || link.server !== server) return { ok: false, reason: "this connect link is not known; ask your agent for a new one" };
    if (Date.now() > link.expires_at) return { ok: false, reason: "this connect link has expired; ask your agent for a new one" };
    const used = { ok: false, reason: "this connect link was used already; ask your agent for a new one" } as const;
    if (link.opened_at !== null) return used;
    const reg = await this.registration(link.server, `${origin}/connect/callback`);
    // used up only now: a discovery or registration that failed (or ran out of time) leaves the link for another try
    if (!this.store.openLink(digest, Date.now())) return used;
    const flow = randomToken();
    const state = flowState(this.principal, flow, await sign(this.key(), flowText(this.principal, flow)));
    const { url, verifier } = await authorizationUrl(reg.auth, reg.client, state);
    this.store.setFlow(digest, await sha256Hex(flow), await seal(this.key(), this.where(link.server, "verifier"), verifier));
    return { ok: true, location: url, flow };
  }

  /**
   * The server's authorization metadata and this Worker's client there: stored (and checked again
   * against the issuer pins: SERVERS may pin another issuer since), or discovered and registered now.
   */
  private async registration(name: string, redirect: string): Promise<{ auth: ServerAuth; client: ClientInfo }> {
    const pins = pinsFor(name, settings(this.env).servers, this.store.issuers());
    const reg = await this.client(name);
    const stale = reg && issuerRefusal(pins, reg.auth.metadata.issuer);
    if (stale) throw new OAuthStepError(this.step(name), "discovery", stale);
    if (reg && reg.client.redirect_uri === redirect) return reg;
    const server = this.server(name);
    const auth = await discover(this.step(name), server, pins);
    const client = await clientFor(this.step(name), server, auth, redirect, settings(this.env).secret);
    this.store.putServerAuth(name, auth, await seal(this.key(), this.where(name, "client"), client));
    return { auth, client };
  }

  /** The authorization server's callback for a flow this principal started: exchange the code, keep the grant. */
  async finish(flow: string, code: string, iss?: string): Promise<FlowFinished> {
    const link = this.store.linkByFlow(await sha256Hex(flow));
    if (!link || !link.verifier) return { ok: false, reason: "this authorization is not known or was completed already" };
    if (Date.now() > link.expires_at) return { ok: false, reason: "this authorization took too long; ask your agent for a new link" };
    const [opened, reg] = await Promise.all([
      openEither<string>(this.keys(), this.where(link.server, "verifier"), link.verifier),
      this.client(link.server),
    ]);
    const verifier = opened?.value;
    if (!verifier || !reg || !this.store.finishFlow(link.flow ?? "", Date.now()))
      return { ok: false, reason: "this authorization is not known or was completed already" };
    // RFC 9207, after the flow is spent: a code sent with the wrong iss is never exchanged, nor retried
    const mixedUp = callbackIssRefusal(reg.auth.metadata, iss);
    if (mixedUp) return { ok: false, reason: `${mixedUp}: nothing was exchanged; ask your agent for a new link` };
    const grant = await exchange(this.step(link.server), reg.auth, reg.client, code, verifier);
    await this.saveGrant(link.server, grant, Date.now());
    return { ok: true, server: link.server };
  }
}
