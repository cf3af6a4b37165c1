// The session view's audit panel: the session's own audit trail (GET /v1/sessions/:id/audit),
// newest first, a page at a time: every search, activation, call and denial with its outcome,
// duration, argument digest and size, result size and note. "More" follows the API's cursor and
// appends the older events; the rows carry the API's values as data attributes.

import type { AuditEvent, AuditPageAnswer as AuditPage } from "../wire/answers.ts";
import { api, ApiError } from "./api.ts";
import { h, int, offset } from "./dom.ts";

/** Events per request: a few searches' worth, so "More" is rarely needed and always cheap. */
export const AUDIT_PAGE = 25;

export const auditPath = (id: string, cursor?: string | null): string =>
  `/v1/sessions/${encodeURIComponent(id)}/audit?limit=${AUDIT_PAGE}${cursor ? `&cursor=${cursor}` : ""}`;

function argsCell(e: AuditEvent): HTMLElement | string {
  if (!e.argsDigest) return "—";
  const summary = h("span", { title: `sha256 ${e.argsDigest}` }, h("code", {}, e.argsDigest.slice(0, 12)), ` ${int(e.argsBytes)} B`);
  if (e.arguments === undefined) return summary;
  return h("details", {}, h("summary", {}, summary), h("pre", {}, JSON.stringify(e.arguments, null, 2)));
}

function row(e: AuditEvent, created: number): HTMLTableRowElement {
  const attrs = {
    "data-event": e.id,
    "data-type": e.type,
    "data-tool": e.tool ?? "",
    "data-outcome": e.outcome,
    "data-duration-ms": e.durationMs,
    "data-args-digest": e.argsDigest ?? "",
    "data-args-bytes": e.argsBytes,
  };
  const cells: Array<[Node | string, string?]> = [
    [h("time", { datetime: e.at, title: e.at }, offset(Date.parse(e.at) - created))],
    [e.type],
    [e.tool ? h("code", {}, e.tool) : "—"],
    [e.outcome, `outcome outcome-${e.outcome === "ok" ? "ok" : "bad"}`],
    [int(e.durationMs), "num"],
    [argsCell(e)],
    [e.resultBytes ? `${int(e.resultBytes)} B` : "—", "num"],
    [e.via],
    [e.detail ?? "", "desc"],
  ];
  return h("tr", attrs, ...cells.map(([c, cls]) => h("td", { class: cls }, c)));
}

/** The panel with its first page; `onError` shows what a "More" request could not get. */
export function auditPanel(id: string, createdAt: string, first: AuditPage, onError: (e: ApiError) => void): HTMLElement {
  const created = Date.parse(createdAt);
  const head = ["When", "Type", "Tool", "Outcome", "ms", "Arguments (sha256, size)", "Result", "Via", "Note"];
  const tbody = h("tbody", {});
  const table = h(
    "table",
    { class: "audit" },
    h("caption", {}, "Audit events"),
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
    tbody,
  );
  const status = h("p", { id: "audit-status", class: "count", "aria-live": "polite" });
  const more = h("button", { type: "button", id: "audit-more" }, "More (older events)");
  let shown = 0;
  let cursor: string | null = null;

  function add(page: AuditPage): void {
    tbody.append(...page.events.map((e) => row(e, created)));
    shown += page.events.length;
    cursor = page.cursor;
    more.hidden = cursor === null;
    table.hidden = shown === 0;
    status.textContent =
      shown === 0
        ? "No events yet."
        : `${int(shown)} ${shown === 1 ? "event" : "events"}, newest first${cursor ? "; older ones follow" : ", all of them"}.`;
  }

  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      add(await api<AuditPage>(auditPath(id, cursor)));
    } catch (e) {
      if (e instanceof ApiError) onError(e);
      else throw e;
    } finally {
      more.disabled = false;
    }
  });
  add(first);
  return h(
    "section",
    { class: "audit-section", "aria-labelledby": "audit-heading" },
    h("h3", { id: "audit-heading" }, "Audit trail"),
    h(
      "p",
      { class: "hint" },
      "Every search, activation, call and denial of this session, from its own storage. Arguments are kept as a sha256 digest and a size (their values only with AUDIT_ARGUMENTS=store).",
    ),
    status,
    h("div", { class: "scroll" }, table),
    more,
  );
}
