// The catalog view's "Your connected accounts" panel: the key's own connections to servers that
// authorize each user ("auth": "oauth"; GET /v1/connections), with their scopes, when they were
// connected and when the access token expires (it is refreshed before), and a Disconnect button
// (DELETE /v1/connections/:server: forgotten, and revoked at the server where it offers that).
// Servers not connected yet are named: a call of one of their tools answers a connect link. The
// panel is empty (hidden) on a deployment without such servers. It never shows a token.

import type { ConnectionsAnswer } from "../wire/connections.ts";
import { api, ApiError } from "./api.ts";
import { h, replace, table } from "./dom.ts";

const when = (iso: string | null) => (iso ? h("time", { datetime: iso }, iso.replace("T", " ").slice(0, 16)) : "—");

function connectionsTable(list: ConnectionsAnswer, disconnect: (server: string) => void): HTMLElement {
  const rows = list.connections.map((c) => [
    h("code", {}, c.server),
    c.scopes.join(" ") || "—",
    when(c.connectedAt),
    when(c.expiresAt),
    h("button", { type: "button", "data-server": c.server, onclick: () => disconnect(c.server) }, "Disconnect"),
  ]);
  return table("Connected accounts", ["Server", "Scopes", "Connected", "Token expires", ""], rows, { class: "connections" });
}

/** The panel; it loads itself, and reloads after a disconnect. */
export function connectionsPanel(onError: (e: ApiError) => void): HTMLElement {
  const panel = h("section", { class: "connections-panel", "aria-label": "Your connected accounts", hidden: true });
  const load = async () => {
    let list: ConnectionsAnswer;
    try {
      list = await api<ConnectionsAnswer>("/v1/connections");
    } catch (e) {
      if (e instanceof ApiError) return onError(e);
      throw e;
    }
    panel.hidden = list.oauthServers.length === 0;
    const connected = new Set(list.connections.map((c) => c.server));
    const waiting = list.oauthServers.filter((s) => !connected.has(s));
    const disconnect = (server: string) =>
      void api(`/v1/connections/${encodeURIComponent(server)}`, { method: "DELETE" }).then(load, (e: unknown) => {
        if (e instanceof ApiError) onError(e);
      });
    replace(
      panel,
      h("h2", {}, "Your connected accounts"),
      list.connections.length ? connectionsTable(list, disconnect) : h("p", { class: "empty" }, "None yet."),
      waiting.length
        ? h("p", { class: "hint" }, `Not connected: ${waiting.join(", ")}. A call of one of their tools answers a connect link.`)
        : "",
    );
  };
  void load();
  return panel;
}
