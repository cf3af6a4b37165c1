// The OAuth steps of the MCP authorization spec (2025-06-18 / 2025-11-25), done with the MCP SDK's
// own client functions (@modelcontextprotocol/sdk/client/auth.js): protected-resource metadata
// (RFC 9728, from the server's 401 WWW-Authenticate, else its well-known URL), authorization-server
// metadata (RFC 8414 / OIDC) with its issuer checked against the entry's pins (issuer-pin.ts),
// dynamic client registration (RFC 7591) when SERVERS names no clientId, the authorization URL
// with PKCE S256 and the `resource` parameter (RFC 8707), the code exchange and the refresh (their
// answers checked: grant.ts). Revocation (RFC 7009) is one POST the SDK has no function for. Every
// request goes through the step's bounded fetch (oauth-fetch.ts), and every failure is an
// OAuthStepError naming the server, the step and the status. Nothing here stores anything or logs
// a token; the principal's role (principal-role.ts) keeps the results.

import {
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { InvalidGrantError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { OAuthClientInformationFull, OAuthMetadata } from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed, resourceUrlFromServerUrl } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { secureOrLoopback } from "../core/oauth-url.ts";
import type { ServerConfig } from "../core/servers.ts";
import { grantOf, type Grant } from "./grant.ts";
import { issuerMismatch, issuerRefusal, type IssuerPins } from "./issuer-pin.ts";
import { OAuthStepError, oauthStep, type StepContext } from "./oauth-fetch.ts";

export type { Grant } from "./grant.ts";

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

/** The SERVERS entry's OAuth discovery, every request bounded (oauth-fetch.ts), the issuer checked against its pins. */
export function discover(at: StepContext, server: ServerConfig, pins: IssuerPins): Promise<ServerAuth> {
  return oauthStep(at, "discovery", async (fetchFn, headersOnly) => {
    const refuse = (reason: string) => new OAuthStepError(at, "discovery", reason);
    // an unauthenticated initialize: the 401's WWW-Authenticate may name the resource metadata
    const probe = await headersOnly(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "toolsearch", version: "1" } },
      }),
    });
    const { resourceMetadataUrl, scope: challenged } = probe.status === 401 ? extractWWWAuthenticateParams(probe) : {};
    // no protected-resource metadata (the SDK's own fallback): the server's origin is its authorization server
    const resourceMetadata = await discoverOAuthProtectedResourceMetadata(server.url, { resourceMetadataUrl }, fetchFn).catch(
      (e: unknown) => {
        if (e instanceof OAuthStepError) throw e;
        return undefined;
      },
    );
    const authorizationServer = resourceMetadata?.authorization_servers?.[0] ?? new URL("/", server.url).href;
    const metadata = await discoverAuthorizationServerMetadata(authorizationServer, { fetchFn });
    if (!metadata) throw refuse("no authorization server metadata was found");
    const refusal =
      issuerMismatch(authorizationServer, metadata.issuer) ?? issuerRefusal(pins, metadata.issuer) ?? endpointRefusal(metadata);
    if (refusal) throw refuse(refusal);
    const own = resourceUrlFromServerUrl(server.url);
    const advertised = resourceMetadata?.resource;
    if (advertised && !checkResourceAllowed({ requestedResource: own, configuredResource: advertised }))
      throw refuse("the server's protected-resource metadata names another resource");
    const scopes = server.oauth?.scopes.length ? server.oauth.scopes : (resourceMetadata?.scopes_supported ?? []);
    const scope = scopes.length ? scopes.join(" ") : challenged;
    return {
      authorizationServer,
      metadata: metadata as OAuthMetadata,
      resource: advertised ?? own.href,
      ...(scope ? { scope } : {}),
    };
  });
}

/** The endpoints the Worker fetches or sends the browser to: https only (http on loopback), checked before any is used. */
function endpointRefusal(m: Record<string, unknown>): string | null {
  for (const key of ["authorization_endpoint", "token_endpoint", "registration_endpoint", "revocation_endpoint"]) {
    const v = m[key];
    if (v !== undefined && (typeof v !== "string" || !URL.canParse(v) || !secureOrLoopback(new URL(v))))
      return `the authorization server's ${key} is not an https URL (plain http only on loopback)`;
  }
  return null;
}

/** The configured client, or a new dynamic registration for this redirect URI. */
export async function clientFor(
  at: StepContext,
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
  if (!auth.metadata.registration_endpoint)
    throw new OAuthStepError(
      at,
      "registration",
      `the authorization server offers no dynamic registration: set ${at.server}.clientId in SERVERS`,
    );
  const registered = await oauthStep(at, "registration", (fetchFn) =>
    registerClient(auth.authorizationServer, {
      metadata: auth.metadata,
      clientMetadata: {
        client_name: "toolsearch",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      ...(auth.scope ? { scope: auth.scope } : {}),
      fetchFn,
    }),
  );
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

export function exchange(at: StepContext, auth: ServerAuth, client: ClientInfo, code: string, verifier: string): Promise<Grant> {
  return oauthStep(at, "exchange", async (fetchFn) => {
    const tokens = await exchangeAuthorization(auth.authorizationServer, {
      metadata: auth.metadata,
      clientInformation: client,
      authorizationCode: code,
      codeVerifier: verifier,
      redirectUri: client.redirect_uri,
      resource: new URL(auth.resource),
      fetchFn,
    });
    return grantOf(at, "exchange", tokens, Date.now());
  });
}

/** A new grant from the refresh token; "gone" when the server refused it (invalid_grant): connect again. */
export function refresh(at: StepContext, auth: ServerAuth, client: ClientInfo, grant: Grant): Promise<Grant | "gone"> {
  const token = grant.refresh_token;
  if (!token) return Promise.resolve("gone");
  return oauthStep(at, "refresh", async (fetchFn) => {
    try {
      const tokens = await refreshAuthorization(auth.authorizationServer, {
        metadata: auth.metadata,
        clientInformation: client,
        refreshToken: token,
        resource: new URL(auth.resource),
        fetchFn,
      });
      return grantOf(at, "refresh", tokens, Date.now());
    } catch (e) {
      if (e instanceof InvalidGrantError) return "gone";
      throw e;
    }
  });
}

/** RFC 7009 revocation of the grant's tokens, where the server offers it; whether it did (a redirect, a failure, no answer in time: false). */
export async function revoke(at: StepContext, auth: ServerAuth, client: ClientInfo, grant: Grant): Promise<boolean> {
  const endpoint = auth.metadata.revocation_endpoint;
  if (!endpoint) return false;
  const tokens: Array<[string, string | undefined]> = [
    ["refresh_token", grant.refresh_token],
    ["access_token", grant.access_token],
  ];
  return oauthStep(at, "revocation", async (fetchFn) => {
    let ok = true;
    for (const [hint, token] of tokens) {
      if (!token) continue;
      const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
      if (client.client_secret) body.set("client_secret", client.client_secret);
      const res = await fetchFn(endpoint, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
      ok &&= res.ok;
    }
    return ok;
  }).catch(() => false);
}
