// The diff view (`catalog diff --html`): both labels, the semver bump the change calls for,
// whether the deferred prompt bytes change, both sides' totals, full-injection tokens per server
// before and after, and the tools added, removed and changed.

import { barChart } from "./chart.ts";
import { h, int, table } from "./dom.ts";
import type { DiffView, ToolRow } from "./types.ts";

function toolList(id: string, title: string, tools: readonly ToolRow[]): HTMLElement {
  return h(
    "section",
    { "aria-labelledby": `${id}-heading`, id },
    h("h3", { id: `${id}-heading` }, `${title}: ${tools.length}`),
    tools.length
      ? h(
          "ul",
          { class: "diff-tools" },
          ...tools.map((t) =>
            h("li", { "data-tool": t.name }, h("code", {}, t.name), ` ${int(t.tokens.definition)} tokens — `, t.description.slice(0, 160)),
          ),
        )
      : h("p", {}, "None."),
  );
}

/** Each total before and after, and the change (rows carry data-total, cells data-value). */
function totalsTable(d: DiffView): HTMLElement {
  const after = new Map(d.new.totals.map((t) => [t.key, t]));
  const signed = (n: number) => (n > 0 ? `+${int(n)}` : int(n));
  const rows = d.old.totals.map((t) => {
    const n = after.get(t.key)?.value ?? 0;
    return h(
      "tr",
      { "data-total": t.key },
      h("th", { scope: "row" }, t.label, h("small", {}, ` (${t.hint})`)),
      h("td", { class: "num", "data-value": t.value }, int(t.value)),
      h("td", { class: "num", "data-value": n }, int(n)),
      h("td", { class: "num" }, signed(n - t.value)),
    );
  });
  return h(
    "table",
    { class: "diff-totals" },
    h("caption", {}, "Tokens before and after"),
    h("thead", {}, h("tr", {}, ...["", "Before", "After", "Change"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows),
  );
}

export function diffView(d: DiffView): HTMLElement {
  return h(
    "section",
    { class: "diff-view", "aria-labelledby": "diff-heading" },
    h("h2", { id: "diff-heading" }, h("code", { "data-side": "old" }, d.old.label), " → ", h("code", { "data-side": "new" }, d.new.label)),
    h(
      "p",
      { class: "verdict" },
      h("strong", { id: "diff-bump", "data-bump": d.bump }, d.bump === "none" ? "identical" : `${d.bump} change`),
      ". Deferred prompt bytes: ",
      h("strong", { id: "diff-prompt" }, d.deferredPromptChanged ? "change (new sessions get a new cached prefix)" : "unchanged"),
      ".",
    ),
    totalsTable(d),
    barChart(
      "Full-injection tokens per server",
      [
        { key: "old", label: "Before" },
        { key: "new", label: "After" },
      ],
      d.servers.map((s) => ({ label: s.name, values: { old: s.old, new: s.new } })),
    ),
    toolList("added", "Added", d.added),
    toolList("removed", "Removed", d.removed),
    h(
      "section",
      { id: "changed", "aria-labelledby": "changed-heading" },
      h("h3", { id: "changed-heading" }, `Changed: ${d.changed.length}`),
      d.changed.length
        ? table(
            "Changed tools",
            ["Tool", "What changed"],
            d.changed.map((c) => [h("code", {}, c.name), c.kind]),
          )
        : h("p", {}, "None."),
    ),
    d.other.length
      ? h(
          "section",
          { "aria-label": "Other differences" },
          h("h3", {}, "Other differences"),
          h("ul", {}, ...d.other.map((o) => h("li", {}, o))),
        )
      : null,
  );
}
