// `catalog stats --html` and `catalog diff --html`: the page's catalog and diff views as one
// self-contained file each, for CI artifacts. Totals are the figures `catalog stats` computes:
// full injection and the sections are the stored counts summed as the Worker sums them, like the
// per-server bars, so a table and its chart agree; the deferred prompt is tokenized whole.

import { catalogLabel, type Catalog } from "../../worker/core/catalog.ts";
import { LISTING_FORMS } from "../../worker/core/listing.ts";
import { serverSummaries, toolRows } from "../../worker/core/summary.ts";
import { SERIES, type CatalogView, type DiffView, type Total } from "../../worker/page/types.ts";
import { diffCatalogs } from "./diff.ts";
import { offlineHtml } from "./page.ts";
import { catalogStats, type CatalogStats } from "./stats.ts";

function totals(s: CatalogStats): Total[] {
  return [
    { key: "full", label: "Full injection", value: s.tokens.full, hint: "every tool's definition" },
    { key: "deferrable", label: "Deferrable tools", value: s.tokens.deferrable, hint: "all but the always-loaded: what the policy weighs" },
    {
      key: "deferred",
      label: "Deferred prompt",
      value: s.tokens.deferred,
      hint: `${s.tokens.auto.form} listing (auto, ${s.tokens.auto.window}-token window) + toolSearch + core tools`,
    },
    ...LISTING_FORMS.map((f) => ({
      key: `section-${f}`,
      label: `Listing: ${f}`,
      value: s.tokens.sections[f],
      hint: f === "names" ? `${s.tokens.perDeferredTool.toFixed(1)} per deferred tool` : "the system section alone",
    })),
  ];
}

export function catalogView(catalog: Catalog, s: CatalogStats): CatalogView {
  return {
    label: catalogLabel(catalog),
    encoding: s.encoding,
    source: `catalog stats (sums of the per-tool counts in ${s.encoding}; the deferred prompt tokenized whole)`,
    servers: serverSummaries(catalog.servers, catalog.tools),
    tools: toolRows(catalog.tools),
    totals: totals(s),
    ratio: { value: s.tokens.ratio, label: "deferred prompt, of full injection" },
    series: SERIES,
  };
}

/** `stats`: the figures `catalog stats` printed for this catalog (computed when not given). */
export async function catalogHtml(catalog: Catalog, stats?: CatalogStats): Promise<string> {
  return offlineHtml(catalogLabel(catalog), { kind: "catalog", view: catalogView(catalog, stats ?? (await catalogStats(catalog))) });
}

export async function diffHtml(a: Catalog, b: Catalog): Promise<string> {
  const d = diffCatalogs(a, b);
  const [sa, sb] = await Promise.all([catalogStats(a), catalogStats(b)]);
  const before = new Map(serverSummaries(a.servers, a.tools).map((s) => [s.name, s.tokens.full]));
  const after = new Map(serverSummaries(b.servers, b.tools).map((s) => [s.name, s.tokens.full]));
  const names = [...new Set([...before.keys(), ...after.keys()])].sort();
  const rows = (c: Catalog, list: string[]) => {
    const wanted = new Set(list);
    return toolRows(c.tools.filter((t) => wanted.has(t.name)));
  };
  const view: DiffView = {
    old: { label: catalogLabel(a), totals: totals(sa) },
    new: { label: catalogLabel(b), totals: totals(sb) },
    bump: d.bump,
    deferredPromptChanged: d.deferredPromptChanged,
    added: rows(b, d.added),
    removed: rows(a, d.removed),
    changed: d.changed,
    other: d.other,
    servers: names.map((name) => ({ name, old: before.get(name) ?? 0, new: after.get(name) ?? 0 })),
  };
  return offlineHtml(`${catalogLabel(a)} → ${catalogLabel(b)}`, { kind: "diff", view });
}
