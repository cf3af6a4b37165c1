// The catalog view's "Waiting for your approval" panel: the key's open requests for a yes
// (POLICY.approval; GET /v1/approvals), each with its tool, server, arguments, session and when it
// expires, and the approval page's two buttons: Approve and Deny (POST /v1/approvals/:id, decided
// as `rest` by the key). After a yes the agent's same call runs when it calls the tool again.
// Hidden while nothing waits.

import type { Approval, ApprovalsAnswer } from "../wire/approvals.ts";
import { api, ApiError } from "./api.ts";
import { h, replace, table } from "./dom.ts";

const when = (iso: string) => h("time", { datetime: iso }, iso.replace("T", " ").slice(0, 16));

function approvalsTable(list: Approval[], decide: (id: string, approve: boolean) => void): HTMLElement {
  const rows = list.map((a) => [
    h("code", {}, a.tool),
    a.server,
    h("code", { class: "arguments" }, a.arguments),
    h("a", { href: `#/session/${encodeURIComponent(a.session)}` }, a.session.slice(0, 12)),
    when(a.expiresAt),
    h(
      "span",
      { class: "decide" },
      h("button", { type: "button", "data-approve": a.id, onclick: () => decide(a.id, true) }, "Approve"),
      " ",
      h("button", { type: "button", "data-deny": a.id, onclick: () => decide(a.id, false) }, "Deny"),
    ),
  ]);
  return table("Waiting for your approval", ["Tool", "Server", "Arguments", "Session", "Expires", ""], rows, { class: "approvals" });
}

/** The panel; it loads itself, and reloads after each decision. */
export function approvalsPanel(onError: (e: ApiError) => void): HTMLElement {
  const panel = h("section", { class: "approvals-panel", "aria-label": "Waiting for your approval", hidden: true });
  const report = (e: unknown) => {
    if (e instanceof ApiError) onError(e);
    else throw e;
  };
  const load = async () => {
    let list: ApprovalsAnswer;
    try {
      list = await api<ApprovalsAnswer>("/v1/approvals");
    } catch (e) {
      return report(e);
    }
    panel.hidden = list.approvals.length === 0;
    const decide = (id: string, approve: boolean) =>
      void api(`/v1/approvals/${encodeURIComponent(id)}`, { method: "POST", body: { approve } }).then(load, report);
    replace(panel, h("h2", {}, "Waiting for your approval"), approvalsTable(list.approvals, decide));
  };
  void load();
  return panel;
}
