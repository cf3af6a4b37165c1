// Token figures of a catalog: full injection (every tool in OpenAI `tools` form) and the deferrable
// tools, against the deferred prompt (a listing section + toolSearch + always-loaded core tools)
// in each listing form, the form `auto` picks for a context window, plus tools per server and the
// largest tools. Totals and sections are the catalog's stored counts summed by the functions the
// Worker uses (core/summary.ts), so `catalog stats`, GET /v1/catalog, the page and a session's
// reason show the same numbers; another encoding recounts the same pieces first (recount). Beside
// the JSON schemas' total, the same tools as TypeScript declarations (code mode).

import type { Catalog, Encoding } from "../../worker/core/catalog.ts";
import { chooseListing } from "../../worker/core/listing-choice.ts";
import { LISTING_FORMS, type ListingForm } from "../../worker/core/listing.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { openaiTool, promptTools, toolDefinition, toolsBytes } from "../../worker/core/prompt.ts";
import { catalogTotals } from "../../worker/core/summary.ts";
import { countListing } from "./listing-counts.ts";
import { tokenCounter, toolTokens, type TokenCounter } from "./tokens.ts";

export interface CatalogStats {
  name: string;
  version: string;
  hash: string;
  encoding: string;
  tools: number;
  servers: number;
  perServer: Array<{ name: string; tools: number; transport: string; summary: string }>;
  tokens: {
    full: number;
    /** every tool but the alwaysLoad ones: what a session's policy weighs against the context window */
    deferrable: number;
    /** the deferred prompt in the form `auto` picks for `auto.window` */
    deferred: number;
    ratio: number;
    /** the deferred prompt (section + toolSearch + core tools) in each form */
    forms: Record<ListingForm, number>;
    /** the listing section alone in each form */
    sections: Record<ListingForm, number>;
    auto: { window: number; budget: number; form: ListingForm; reason: string };
    /** the names section per deferred tool */
    perDeferredTool: number;
    coreTools: number;
    /** every tool as a TypeScript declaration, code mode's form of `full` (core/summary.ts); null if the catalog has no such counts */
    declarations: number | null;
  };
  largest: Array<{ name: string; tokens: number }>;
}

export interface StatsOptions {
  /** another encoding than the catalog's, for comparison */
  encoding?: Encoding;
  /** the context window `auto` decides for (default 128,000) and its share for the listing */
  window?: number;
  budget?: number;
}

export async function catalogStats(catalog: Catalog, opts: StatsOptions = {}): Promise<CatalogStats> {
  const encoding = opts.encoding ?? catalog.build.encoding;
  const window = opts.window ?? 128_000;
  const share = opts.budget ?? DEFAULT_POLICY.listingBudget;
  const count = await tokenCounter(encoding);
  const counted = encoding === catalog.build.encoding ? catalog : recount(catalog, count);
  const core = catalog.tools.filter((t) => t.alwaysLoad).map(toolDefinition);
  const deferred = counted.tools.filter((t) => !t.alwaysLoad);
  const totals = catalogTotals(counted.tools);
  const full = totals.fullInjection;
  const toolsPart = count(
    toolsBytes(promptTools({ systemSection: "", coreTools: core, withToolSearch: deferred.length > 0, activated: [] }).map(openaiTool)),
  );
  const sections = Object.fromEntries(LISTING_FORMS.map((f) => [f, deferred.length ? counted.listing.sections[f] : 0])) as Record<
    ListingForm,
    number
  >;
  const forms = Object.fromEntries(LISTING_FORMS.map((f) => [f, sections[f] + toolsPart])) as Record<ListingForm, number>;
  const budget = Math.floor(window * share + 1e-9);
  const choice = chooseListing("auto", sections, {
    tokens: budget,
    what: `${Number((share * 100).toFixed(4))}% of a ${window}-token context`,
  });
  return {
    name: catalog.name,
    version: catalog.version,
    hash: catalog.hash,
    encoding,
    tools: catalog.tools.length,
    servers: catalog.servers.length,
    perServer: catalog.servers.map((s) => ({ name: s.name, tools: s.tools, transport: s.transport, summary: s.summary })),
    tokens: {
      full,
      deferrable: totals.deferrable,
      deferred: forms[choice.form],
      ratio: full ? forms[choice.form] / full : 0,
      forms,
      sections,
      auto: { window, budget, form: choice.form, reason: choice.reason },
      perDeferredTool: deferred.length ? sections.names / deferred.length : 0,
      coreTools: core.length,
      declarations: totals.declarations,
    },
    largest: [...counted.tools]
      .sort((a, b) => b.tokens.definition - a.tokens.definition || (a.name < b.name ? -1 : 1))
      .slice(0, 10)
      .map((t) => ({ name: t.name, tokens: t.tokens.definition })),
  };
}

/** The catalog's per-tool and listing counts in another encoding, counted as `catalog build` counts them. */
function recount(catalog: Catalog, count: TokenCounter): Pick<Catalog, "tools" | "listing"> {
  const tools = catalog.tools.map((t) => ({
    ...t,
    tokens: toolTokens(t, count),
  }));
  const { tools: counted, listing } = countListing(tools, catalog.servers, count);
  return { tools: counted, listing };
}
