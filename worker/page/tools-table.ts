// The tools table: a text filter (name, server, title, description, search text), a server filter,
// and sort by any column (header buttons: keyboard operable, aria-sort says the order). At most
// MAX_ROWS rows are drawn; the count says how many match. A tool's search text folds out under
// its description.

import { field, h, int, replace } from "./dom.ts";
import type { ToolRow } from "./types.ts";

const MAX_ROWS = 500;

interface Column {
  key: string;
  label: string;
  value: (t: ToolRow) => string | number;
  numeric?: boolean;
}

const COLUMNS: Column[] = [
  { key: "name", label: "Tool", value: (t) => t.name },
  { key: "server", label: "Server", value: (t) => t.server },
  { key: "definition", label: "Schema tokens", value: (t) => t.tokens.definition, numeric: true },
  { key: "listing", label: "Names-listing tokens", value: (t) => (t.alwaysLoad ? 0 : t.tokens.name), numeric: true },
  { key: "loading", label: "Loading", value: (t) => (t.alwaysLoad ? "always" : "deferred") },
  { key: "description", label: "Description", value: (t) => t.description },
];

const searchWords = (t: ToolRow) =>
  t.search ? [t.search.hint, t.search.when, ...(t.search.queries ?? []), ...(t.search.keywords ?? [])].join(" ") : "";

/** The tool's search text (indexed, never shown to a model), folded under its description. */
function searchTextDetails(t: ToolRow): HTMLElement | null {
  const s = t.search;
  if (!s) return null;
  const line = (label: string, text: string | undefined) => (text ? h("p", {}, h("strong", {}, `${label}: `), text) : null);
  return h(
    "details",
    { class: "search-text" },
    h("summary", {}, "search text"),
    line("server's hint", s.hint),
    line("when", s.when),
    s.queries?.length ? h("ul", { "aria-label": "example requests" }, ...s.queries.map((q) => h("li", {}, q))) : null,
    line("keywords", s.keywords?.join(", ")),
  );
}

export function toolsTable(tools: readonly ToolRow[], idPrefix = "tools"): HTMLElement {
  let sortKey = "name";
  let descending = false;
  const filter = h("input", { id: `${idPrefix}-filter`, type: "search", autocomplete: "off", placeholder: "e.g. issue, screenshot" });
  const servers = [...new Set(tools.map((t) => t.server))].sort();
  const server = h(
    "select",
    { id: `${idPrefix}-server` },
    h("option", { value: "" }, "All servers"),
    ...servers.map((s) => h("option", { value: s }, s)),
  );
  const count = h("p", { class: "count", "aria-live": "polite", id: `${idPrefix}-count` });
  const headRow = h("tr");
  const body = h("tbody");
  const tableEl = h("table", { class: "tools", id: `${idPrefix}-table` }, h("caption", {}, "Tools"), h("thead", {}, headRow), body);

  function draw(): void {
    const words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const col = COLUMNS.find((c) => c.key === sortKey)!;
    const shown = tools
      .filter(
        (t) =>
          (!server.value || t.server === server.value) &&
          words.every((w) => `${t.name} ${t.server} ${t.title ?? ""} ${t.description} ${searchWords(t)}`.toLowerCase().includes(w)),
      )
      .sort((a, b) => {
        const [x, y] = [col.value(a), col.value(b)];
        const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
        return (descending ? -order : order) || a.name.localeCompare(b.name);
      });
    replace(
      headRow,
      ...COLUMNS.map((c) =>
        h(
          "th",
          {
            scope: "col",
            "aria-sort": c.key === sortKey ? (descending ? "descending" : "ascending") : undefined,
            class: c.numeric ? "num" : undefined,
          },
          h(
            "button",
            { type: "button", "data-sort": c.key, onclick: () => sortBy(c) },
            c.label,
            h("span", { "aria-hidden": "true" }, c.key === sortKey ? (descending ? " ▼" : " ▲") : ""),
          ),
        ),
      ),
    );
    replace(
      body,
      ...shown
        .slice(0, MAX_ROWS)
        .map((t) =>
          h(
            "tr",
            { "data-tool": t.name },
            h("td", {}, h("code", {}, t.name)),
            h("td", {}, t.server),
            h("td", { class: "num" }, int(t.tokens.definition)),
            h("td", { class: "num" }, int(t.alwaysLoad ? 0 : t.tokens.name)),
            h("td", {}, t.alwaysLoad ? "always" : "deferred"),
            h(
              "td",
              { class: "desc" },
              t.description.length > 200 ? `${t.description.slice(0, 199)}…` : t.description,
              searchTextDetails(t),
            ),
          ),
        ),
    );
    count.textContent = `${int(shown.length)} of ${int(tools.length)} tools${shown.length > MAX_ROWS ? ` (the first ${MAX_ROWS} drawn: filter to narrow)` : ""}`;
  }

  function sortBy(c: Column): void {
    descending = c.key === sortKey ? !descending : !!c.numeric;
    sortKey = c.key;
    draw();
    (headRow.querySelector(`button[data-sort="${c.key}"]`) as HTMLButtonElement | null)?.focus();
  }

  filter.addEventListener("input", draw);
  server.addEventListener("change", draw);
  draw();
  return h(
    "section",
    { class: "tools-section", "aria-labelledby": `${idPrefix}-heading` },
    h("h3", { id: `${idPrefix}-heading` }, "Tools"),
    h("div", { class: "controls" }, field("Filter tools", filter), field("Server", server)),
    count,
    h("div", { class: "scroll" }, tableEl),
  );
}
