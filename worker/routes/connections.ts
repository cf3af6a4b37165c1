// The caller's upstream accounts (servers with "auth": "oauth", docs/edge-execution.md):
// GET /v1/connections lists them; DELETE /v1/connections/:server forgets one and revokes its
// tokens at the server (RFC 7009) where it offers that, and drops every connect link and flow
// for it. Connecting, in a browser, is routes/connect.ts. A key that names no user has no
// accounts (R2-M5): it lists none and addresses no principal object.

import { AccountsClient } from "../accounts/accounts-client.ts";
import { ToolsearchError } from "../core/errors.ts";
import { json, param, route, type RouteContext } from "../http.ts";
import { requireServers, settings } from "../settings.ts";
import type { ConnectionsAnswer, DisconnectAnswer } from "../wire/connections.ts";

async function list(c: RouteContext): Promise<Response> {
  const oauthServers = [...requireServers(settings(c.env))].filter(([, s]) => s.oauth).map(([name]) => name);
  // no such servers, or no user: no principal object to address (addressing one gives it storage)
  const connections = oauthServers.length && c.user ? await AccountsClient.of(c.env, c).connections() : [];
  return json({ connections, oauthServers } satisfies ConnectionsAnswer);
}

async function disconnect(c: RouteContext): Promise<Response> {
  const server = param(c, "server");
  const { removed, revoked } = c.user ? await AccountsClient.of(c.env, c).disconnect(server) : { removed: false, revoked: false };
  if (!removed) throw new ToolsearchError("not_found", `no connection to ${server.slice(0, 80)}`);
  return json({ server, disconnected: true, revoked } satisfies DisconnectAnswer);
}

export const connectionRoutes = [route("GET", "/v1/connections", list), route("DELETE", "/v1/connections/:server", disconnect)];
