// Connecting an account, in a browser, with no API key header (R2-H1). A connect link
// (`/connect/<server>/<principal>.<secret>`: single use, expiring, made for one principal and
// server) opens a confirmation page naming the deployment, the server and the account; it touches
// no storage. Only the page's own POST starts the authorization: same origin (Origin, else
// Sec-Fetch-Site), the page's CSRF token matching its cookie, and a key that acts as the link's
// principal (auth.ts keyActingAs: a link leaked to someone else, or opened by another site in a
// victim's browser, cannot complete without that key). It then sends the browser to the
// authorization server with a cookie naming the flow. GET /connect/callback takes the code back
// only in that browser, with a state whose tag this Worker signed (a forged one addresses no
// principal object), exchanges it, and shows a short page. Refusals are short pages too.

import { AccountsClient } from "../accounts/accounts-client.ts";
import { flowText, randomToken, splitState, splitToken } from "../accounts/principal-names.ts";
import { sealingKeys, signed } from "../accounts/sealed.ts";
import { keyActingAs } from "../auth.ts";
import { ToolsearchError } from "../core/errors.ts";
import { param, readBytes, route, type RouteContext } from "../http.ts";
import { admit } from "../session/quota-client.ts";
import { requireServers, settings } from "../settings.ts";
import { parseCallbackQuery, parseConnectForm } from "../wire/connections.ts";
import { confirmPage, connectPage, pageError } from "./connect-page.ts";
import { cookie, pageForm, setCookie } from "./form-guard.ts";

const FLOW_COOKIE = "toolsearch_connect";
const CSRF_COOKIE = "toolsearch_csrf";
const UNKNOWN = "this connect link is not known; ask your agent for a new one";

/** The link in the path: its server (one that authorizes users) and principal. No storage is read. */
function linkOf(c: RouteContext) {
  const server = param(c, "server");
  const parts = splitToken(param(c, "link"));
  if (!parts || !parts.principal.user || !requireServers(settings(c.env)).get(server)?.oauth)
    throw new ToolsearchError("not_found", UNKNOWN);
  return { server, ...parts };
}

async function confirm(c: RouteContext): Promise<Response> {
  const link = linkOf(c);
  const csrf = randomToken();
  const ttlS = settings(c.env).connectLinkTtlMs / 1000;
  const account = `${link.principal.tenant}/${link.principal.user}`;
  return confirmPage(
    { host: c.url.host, server: link.server, account, csrf },
    { "set-cookie": setCookie(c, "/connect", CSRF_COOKIE, csrf, ttlS, "Strict") },
  );
}

async function start(c: RouteContext): Promise<Response> {
  const link = linkOf(c);
  const { caller } = await pageForm(c, { cookie: CSRF_COOKIE, parse: parseConnectForm, principal: link.principal });
  const opened = await AccountsClient.of(c.env, link.principal).startFlow(link.secret, link.server, c.url.origin).catch(upstream);
  if (!opened.ok) throw new ToolsearchError("not_found", opened.reason, 410);
  const headers = new Headers({ location: opened.location, "cache-control": "no-store" });
  headers.append("set-cookie", setCookie(c, "/connect", FLOW_COOKIE, opened.flow, settings(c.env).connectLinkTtlMs / 1000, "Lax"));
  headers.append("set-cookie", `${CSRF_COOKIE}=; Path=/connect; Max-Age=0`);
  return new Response(null, { status: 303, headers });
}

/** A failure of the authorization server (discovery, registration, the exchange): a 502 that says which step. */
function upstream(e: unknown): never {
  if (e instanceof ToolsearchError) throw e;
  throw new ToolsearchError("server_failed", String((e as Error)?.message ?? e).slice(0, 300));
}

async function callback(c: RouteContext): Promise<Response> {
  const q = parseCallbackQuery(c.url.searchParams);
  if ("error" in q)
    throw new ToolsearchError(
      "forbidden",
      `the authorization server answered: ${q.error}${q.error_description ? ` (${q.error_description})` : ""}`,
    );
  const state = splitState(q.state);
  if (!state) throw new ToolsearchError("bad_request", "this authorization is not known");
  // the flow's cookie: a code is taken only in the browser that started the flow it belongs to
  if (cookie(c.request, FLOW_COOKIE) !== state.flow)
    throw new ToolsearchError("forbidden", "this authorization was started in another browser, or its link was never opened here");
  if (!(await signed(sealingKeys(settings(c.env).secret), flowText(state.principal, state.flow), state.tag)))
    throw new ToolsearchError("bad_request", "this authorization is not known");
  const done = await AccountsClient.of(c.env, state.principal).finish(state.flow, q.code, q.iss).catch(upstream);
  if (!done.ok) throw new ToolsearchError("not_found", done.reason, 410);
  const headers = { "set-cookie": `${FLOW_COOKIE}=; Path=/connect; Max-Age=0` };
  return connectPage(200, `Connected to ${done.server}`, "Your account is connected; go back to your agent.", headers);
}

export const connectRoutes = [
  route("GET", "/connect/callback", callback, pageError),
  route("GET", "/connect/:server/:link", confirm, pageError),
  // rendersAuth: a wrong key is a page saying so, not the API's JSON 401
  route("POST", "/connect/:server/:link", start, pageError, true),
];
