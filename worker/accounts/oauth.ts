// The OAuth steps of the MCP authorization spec (2025-06-18 / 2025-11-25), done with the MCP SDK's
// own client functions (@modelcontextprotocol/sdk/client/auth.js): protected-resource metadata
// (RFC 9728, from the server's 401 WWW-Authenticate, else its well-known URL), authorization-server
// metadata (RFC 8414 / OIDC), dynamic client registration (RFC 7591) when SERVERS names no
// clientId, the authorization URL with PKCE S256 and the `resource` parameter (RFC 8707), the code
// exchange and the refresh. Revocation (RFC 7009) is one POST the SDK has no function for. Nothing
// here stores anything or logs a token; the principal's role (principal-role.ts) keeps the results.

import {
  discoverOAuthServerInfo,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationFull, OAuthMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import type { ServerConfig } from "../core/servers.ts";

/** What the Worker learned of a server's authorization (not secret: metadata anyone can read). */
export interface ServerAuth {
  authorizationServer: string;
  metadata: OAuthMetadata;
  resource: string;
  /** scopes to ask for: SERVERS `scopes`, else the server's scopes_supported */
  scope?: string;
}

/** A client registration: the configured clientId (and secret), or one registered dynamically. */
export type ClientInfo = Pick<OAuthClientInformationFull, "client_id" | "client_secret"> & { redirect_uri: string };

/** Stored tokens, with when they were issued and when they expire (ms since 1970). */
export interface Grant {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  issuedAt: number;
  expiresAt?: number;
}

export async function discover(server: ServerConfig): Promise<ServerAuth> {
  // an unauthenticated initialize: the 401's WWW-Authenticate may name the resource metadata
  const probe = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "toolsearch", version: "1" } },
    }),
    signal: AbortSignal.timeout(server.timeoutMs),
  });
  const { resourceMetadataUrl, scope: challenged } = probe.status === 401 ? extractWWWAuthenticateParams(probe) : {};
  await probe.body?.cancel();
  const info = await discoverOAuthServerInfo(server.url, { resourceMetadataUrl });
  if (!info.authorizationServerMetadata) throw new Error(`no authorization server metadata found for ${server.url}`);
  const own = resourceUrlFromServerUrl(server.url);
  const advertised = info.resourceMetadata?.resource;
  if (advertised && !checkResourceAllowed({ requestedResource: own, configuredResource: advertised }))
    throw new Error(`the server's protected-resource metadata names another resource (${advertised})`);
  const scopes = server.oauth?.scopes.length ? server.oauth.scopes : (info.resourceMetadata?.scopes_supported ?? []);
  const scope = scopes.length ? scopes.join(" ") : challenged;
  return {
    authorizationServer: String(info.authorizationServerUrl),
    metadata: info.authorizationServerMetadata as OAuthMetadata,
    resource: advertised ?? own.href,
    ...(scope ? { scope } : {}),
  };
}

/** The configured client, or a new dynamic registration for this redirect URI. */
export async function clientFor(
  server: ServerConfig,
  auth: ServerAuth,
  redirectUri: string,
  secret: (name: string) => string | undefined,
): Promise<ClientInfo> {
  const configured = server.oauth?.clientId;
  if (configured) {
    const name = server.oauth?.clientSecret;
    const value = name ? secret(name) : undefined;
    if (name && !value) throw new Error(`the client secret ${name} is not set (wrangler secret put ${name})`);
    return { client_id: configured, ...(value ? { client_secret: value } : {}), redirect_uri: redirectUri };
  }
  const registered = await registerClient(auth.authorizationServer, {
    metadata: auth.metadata,
    clientMetadata: {
      client_name: "toolsearch",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    ...(auth.scope ? { scope: auth.scope } : {}),
  });
  return {
    client_id: registered.client_id,
    ...(registered.client_secret ? { client_secret: registered.client_secret } : {}),
    redirect_uri: redirectUri,
  };
}

/** The authorization server's URL to send the browser to, and the PKCE verifier to keep. */
export async function authorizationUrl(auth: ServerAuth, client: ClientInfo, state: string): Promise<{ url: string; verifier: string }> {
  const { authorizationUrl: url, codeVerifier } = await startAuthorization(auth.authorizationServer, {
    metadata: auth.metadata,
    clientInformation: client,
    redirectUrl: client.redirect_uri,
    state,
    resource: new URL(auth.resource),
    ...(auth.scope ? { scope: auth.scope } : {}),
  });
  return { url: url.href, verifier: codeVerifier };
}

function grantOf(tokens: OAuthTokens, now: number): Grant {
  return {
    access_token: tokens.access_token,
    ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    issuedAt: now,
    ...(tokens.expires_in !== undefined ? { expiresAt: now + tokens.expires_in * 1000 } : {}),
  };
}

export async function exchange(auth: ServerAuth, client: ClientInfo, code: string, verifier: string): Promise<Grant> {
  const tokens = await exchangeAuthorization(auth.authorizationServer, {
    metadata: auth.metadata,
    clientInformation: client,
    authorizationCode: code,
    codeVerifier: verifier,
    redirectUri: client.redirect_uri,
    resource: new URL(auth.resource),
  });
  return grantOf(tokens, Date.now());
}

/** A new grant from the refresh token; "gone" when the server refused it (invalid_grant): connect again. */
export async function refresh(auth: ServerAuth, client: ClientInfo, grant: Grant): Promise<Grant | "gone"> {
  if (!grant.refresh_token) return "gone";
  try {
    const tokens = await refreshAuthorization(auth.authorizationServer, {
      metadata: auth.metadata,
      clientInformation: client,
      refreshToken: grant.refresh_token,
      resource: new URL(auth.resource),
    });
    return grantOf(tokens, Date.now());
  } catch (e) {
    if (e instanceof InvalidGrantError) return "gone";
    throw e;
  }
}

/** RFC 7009 revocation of the grant's tokens, where the server offers it; whether it did. */
export async function revoke(auth: ServerAuth, client: ClientInfo, grant: Grant): Promise<boolean> {
  const endpoint = auth.metadata.revocation_endpoint;
  if (!endpoint) return false;
  let ok = true;
  const tokens: Array<[string, string | undefined]> = [
    ["refresh_token", grant.refresh_token],
    ["access_token", grant.access_token],
  ];
  for (const [hint, token] of tokens) {
    if (!token) continue;
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
    if (client.client_secret) body.set("client_secret", client.client_secret);
    const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    await res.body?.cancel();
    ok &&= res.ok;
  }
  return ok;
}
