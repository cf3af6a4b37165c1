// A grouped horizontal bar chart in plain SVG: one group per row (a server), one bar per series
// (full injection, the deferred listing, ...), one linear scale for all bars so their lengths
// compare. Each bar carries data-row, data-series and data-value (the number it draws), a
// <title> for pointer users, and the value as text beside it.

import { h, int, svg } from "./dom.ts";

export interface ChartSeries {
  key: string;
  label: string;
}

export interface ChartRow {
  label: string;
  values: Record<string, number>;
}

const LABEL_W = 170;
const BAR_W = 430;
const VALUE_W = 80;
const BAR_H = 13;
const GAP = 3;
const GROUP_GAP = 12;

export function barChart(title: string, series: readonly ChartSeries[], rows: readonly ChartRow[]): HTMLElement {
  const max = Math.max(1, ...rows.flatMap((r) => series.map((s) => r.values[s.key] ?? 0)));
  const groupH = series.length * (BAR_H + GAP) - GAP;
  const height = rows.length * (groupH + GROUP_GAP) + GROUP_GAP;
  const width = LABEL_W + BAR_W + VALUE_W;
  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": `${title}: ${series.map((s) => s.label).join(" vs. ")} per server (table below has the numbers)`,
    class: "chart",
  });
  rows.forEach((row, i) => {
    const top = GROUP_GAP + i * (groupH + GROUP_GAP);
    const g = svg("g", { "data-row": row.label });
    g.append(
      svg(
        "text",
        { x: LABEL_W - 8, y: top + groupH / 2, class: "chart-label", "text-anchor": "end", "dominant-baseline": "middle" },
        row.label,
      ),
    );
    series.forEach((s, j) => {
      const value = row.values[s.key] ?? 0;
      const y = top + j * (BAR_H + GAP);
      // a non-zero value is never drawn thinner than one unit, so it stays visible
      const w = value > 0 ? Math.max(1, (value / max) * BAR_W) : 0;
      g.append(
        svg(
          "rect",
          { x: LABEL_W, y, width: w.toFixed(2), height: BAR_H, class: `bar bar-${s.key}`, "data-series": s.key, "data-value": value },
          svg("title", {}, `${row.label}, ${s.label}: ${int(value)} tokens`),
        ),
        svg("text", { x: LABEL_W + w + 4, y: y + BAR_H / 2, class: "chart-value", "dominant-baseline": "middle" }, int(value)),
      );
    });
    chart.append(g);
  });
  const legend = h(
    "ul",
    { class: "legend" },
    ...series.map((s) => h("li", {}, h("span", { class: `swatch bar-${s.key}`, "aria-hidden": "true" }), s.label)),
  );
  return h("figure", { class: "chart-figure" }, h("figcaption", {}, title), legend, chart);
}
