// The catalog view: the label, the headline totals and their ratio, the per-server chart (full
// injection next to each deferred listing form), the servers table with the same numbers, and the
// tools table. The same function draws the page's view (from GET /v1/catalog) and the CLI's
// `catalog stats --html` file (from the catalog itself).

import type { CatalogInfo } from "../wire/answers.ts";
import { barChart } from "./chart.ts";
import { h, int, percent, table } from "./dom.ts";
import { toolsTable } from "./tools-table.ts";
import { SERIES, type CatalogView, type Total, type ToolRow } from "./types.ts";

const FORM_HINTS = {
  names: "every deferred name, a line each",
  grouped: "a line per server of short names",
  servers: "a line per server: count and summary",
  none: "counts and how to search",
};

/** The view from the API: every figure a sum of the per-tool counts stored in the catalog. */
export function viewFromApi(info: CatalogInfo, tools: ToolRow[]): CatalogView {
  const { fullInjection, deferrable, coreTools, listing } = info.tokens;
  return {
    label: info.label,
    encoding: info.encoding,
    source: "GET /v1/catalog: sums of the per-tool token counts stored in the catalog",
    servers: info.servers,
    tools,
    totals: [
      { key: "full", label: "Full injection", value: fullInjection, hint: "every tool's definition" },
      { key: "deferrable", label: "Deferrable tools", value: deferrable, hint: "all but the always-loaded: what the policy weighs" },
      ...(Object.keys(FORM_HINTS) as Array<keyof typeof FORM_HINTS>).map((f) => ({
        key: `listing-${f}`,
        label: `Listing: ${f}`,
        value: listing[f],
        hint: FORM_HINTS[f],
      })),
      { key: "core", label: "Core tools", value: coreTools, hint: "always-loaded definitions" },
    ],
    ratio: {
      value: fullInjection ? (listing.names + coreTools) / fullInjection : 0,
      label: "names listing + core tools, of full injection",
    },
    series: SERIES,
  };
}

export function totalsList(totals: readonly Total[], ratio?: CatalogView["ratio"]): HTMLElement {
  return h(
    "dl",
    { class: "totals" },
    ...totals.map((t) =>
      h(
        "div",
        { class: "total", "data-total": t.key },
        h("dt", {}, t.label),
        h("dd", { "data-value": t.value }, int(t.value), h("small", {}, ` tokens, ${t.hint}`)),
      ),
    ),
    ratio
      ? h(
          "div",
          { class: "total ratio", "data-total": "ratio" },
          h("dt", {}, "Ratio"),
          h("dd", { "data-value": ratio.value }, percent(ratio.value), h("small", {}, ` ${ratio.label}`)),
        )
      : null,
  );
}

/** At most CHART_MAX servers are charted (the largest by full injection); the table has them all. */
const CHART_MAX = 40;

function serverChart(view: CatalogView): HTMLElement {
  const servers =
    view.servers.length > CHART_MAX
      ? [...view.servers].sort((a, b) => b.tokens.full - a.tokens.full || (a.name < b.name ? -1 : 1)).slice(0, CHART_MAX)
      : view.servers;
  const title =
    servers.length < view.servers.length
      ? `Tokens per server: the ${CHART_MAX} largest of ${int(view.servers.length)}`
      : "Tokens per server";
  return barChart(
    title,
    view.series,
    servers.map((s) => ({ label: s.name, values: { ...s.tokens } })),
  );
}

export function catalogView(view: CatalogView, ...extra: HTMLElement[]): HTMLElement {
  const serverRows = view.servers.map((s) => [
    h("code", {}, s.name),
    s.transport,
    s.serverInfo ? `${s.serverInfo.name} ${s.serverInfo.version}` : "—",
    int(s.tools),
    ...view.series.map((k) => int(s.tokens[k.key])),
    int(s.tokens.core),
  ]);
  const toolCount = view.servers.reduce((n, s) => n + s.tools, 0);
  return h(
    "section",
    { class: "catalog-view", "aria-labelledby": "catalog-heading" },
    h("h2", { id: "catalog-heading" }, "Catalog ", h("code", { class: "label", "data-label": view.label }, view.label)),
    h(
      "p",
      { class: "meta" },
      `${int(toolCount)} tools from ${int(view.servers.length)} servers, tokens counted with ${view.encoding}. `,
      h("small", {}, `Figures: ${view.source}.`),
    ),
    totalsList(view.totals, view.ratio),
    serverChart(view),
    ...extra,
    table("Servers", ["Server", "Transport", "Server info", "Tools", ...view.series.map((s) => s.label), "Core tools"], serverRows, {
      class: "servers",
    }),
    toolsTable(view.tools),
  );
}
