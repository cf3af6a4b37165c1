// The caller's upstream accounts (servers with "auth": "oauth", docs/edge-execution.md):
// GET /v1/connections lists them; DELETE /v1/connections/:server forgets one and revokes its
// tokens at the server (RFC 7009) where it offers that. And connecting, in a browser, with no API
// key: GET /connect/<link> (single use, expiring, bound to the principal and server it was made
// for) sends the browser to the authorization server with a cookie naming the flow; GET
// /connect/callback takes the code back, only in the browser that started that flow, exchanges
// it, and shows a short page. A refused link or callback is a short page too (connect-page.ts).

import { AccountsClient } from "../accounts/accounts-client.ts";
import { splitToken } from "../accounts/principal-names.ts";
import { ToolsearchError } from "../core/errors.ts";
import { json, param, route, type RouteContext } from "../http.ts";
import { requireServers, settings } from "../settings.ts";
import { parseCallbackQuery, type ConnectionsAnswer, type DisconnectAnswer } from "../wire/connections.ts";
import { connectPage, pageError } from "./connect-page.ts";

const FLOW_COOKIE = "toolsearch_connect";

async function list(c: RouteContext): Promise<Response> {
  const oauthServers = [...requireServers(settings(c.env))].filter(([, s]) => s.oauth).map(([name]) => name);
  // no such servers: no principal object to address (addressing one gives it storage)
  const connections = oauthServers.length ? await AccountsClient.of(c.env, c).connections() : [];
  return json({ connections, oauthServers } satisfies ConnectionsAnswer);
}

async function disconnect(c: RouteContext): Promise<Response> {
  const server = param(c, "server");
  const { removed, revoked } = await AccountsClient.of(c.env, c).disconnect(server);
  if (!removed) throw new ToolsearchError("not_found", `no connection to ${server.slice(0, 80)}`);
  return json({ server, disconnected: true, revoked } satisfies DisconnectAnswer);
}

async function openLink(c: RouteContext): Promise<Response> {
  const parts = splitToken(param(c, "link"));
  if (!parts) throw new ToolsearchError("not_found", "this connect link is not known; ask your agent for a new one");
  const opened = await AccountsClient.of(c.env, parts.principal).openLink(parts.secret, c.url.origin).catch(upstream);
  if (!opened.ok) throw new ToolsearchError("not_found", opened.reason, 410);
  const secure = c.url.protocol === "https:" ? "; Secure" : "";
  const cookie = `${FLOW_COOKIE}=${opened.flow}; Path=/connect; HttpOnly; SameSite=Lax; Max-Age=${settings(c.env).connectLinkTtlMs / 1000}${secure}`;
  return new Response(null, { status: 302, headers: { location: opened.location, "set-cookie": cookie, "cache-control": "no-store" } });
}

/** A failure of the authorization server (discovery, registration, the exchange): a 502 that says which step. */
function upstream(e: unknown): never {
  if (e instanceof ToolsearchError) throw e;
  throw new ToolsearchError("server_failed", String((e as Error)?.message ?? e).slice(0, 300));
}

function flowCookie(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, v] = part.trim().split("=");
    if (k === FLOW_COOKIE && v) return v;
  }
  return null;
}

async function callback(c: RouteContext): Promise<Response> {
  const q = parseCallbackQuery(c.url.searchParams);
  if ("error" in q)
    throw new ToolsearchError(
      "forbidden",
      `the authorization server answered: ${q.error}${q.error_description ? ` (${q.error_description})` : ""}`,
    );
  const parts = splitToken(q.state);
  if (!parts) throw new ToolsearchError("bad_request", "this authorization is not known");
  // the flow's cookie: a code is taken only in the browser that opened the link it belongs to
  if (flowCookie(c.request) !== parts.secret)
    throw new ToolsearchError("forbidden", "this authorization was started in another browser, or its link was never opened here");
  const done = await AccountsClient.of(c.env, parts.principal).finish(parts.secret, q.code, q.iss).catch(upstream);
  if (!done.ok) throw new ToolsearchError("not_found", done.reason, 410);
  const headers = { "set-cookie": `${FLOW_COOKIE}=; Path=/connect; Max-Age=0` };
  return connectPage(200, `Connected to ${done.server}`, "Your account is connected; go back to your agent.", headers);
}

export const connectionRoutes = [
  route("GET", "/v1/connections", list),
  route("DELETE", "/v1/connections/:server", disconnect),
  route("GET", "/connect/callback", callback, pageError),
  route("GET", "/connect/:link", openLink, pageError),
];
