// What the views draw, as data (types, and the chart's series): built by the page from /v1 answers, or by the CLI from catalog
// files (`catalog stats --html`, `catalog diff --html`) and embedded in a self-contained file.

import type { ServerSummary, ServerTokens, ToolRow } from "../core/summary.ts";

export type { ServerSummary, ServerTokens, ToolRow };

/** One headline figure: `value` tokens, what it counts in `hint`. */
export interface Total {
  key: string;
  label: string;
  value: number;
  hint: string;
}

export interface CatalogView {
  label: string;
  encoding: string;
  /** where the figures come from (an API route, or the CLI's exact count) */
  source: string;
  servers: ServerSummary[];
  tools: ToolRow[];
  totals: Total[];
  ratio: { value: number; label: string };
  /** the bars per server: full injection next to each deferred listing form */
  series: Array<{ key: keyof ServerTokens; label: string }>;
}

/** The bars the catalog view draws per server: full injection, and its part of each listing form. */
export const SERIES: CatalogView["series"] = [
  { key: "full", label: "Full injection (every schema)" },
  { key: "names", label: "Listing: names" },
  { key: "grouped", label: "Listing: grouped" },
  { key: "servers", label: "Listing: servers" },
];

export interface DiffSide {
  label: string;
  totals: Total[];
}

export interface DiffView {
  old: DiffSide;
  new: DiffSide;
  bump: string;
  deferredPromptChanged: boolean;
  added: ToolRow[];
  removed: ToolRow[];
  changed: Array<{ name: string; kind: string }>;
  other: string[];
  /** full-injection tokens per server, before and after (0 where a side lacks the server) */
  servers: Array<{ name: string; old: number; new: number }>;
}

/** The JSON a self-contained file embeds (script#toolsearch-data). */
export type OfflineData = { kind: "catalog"; view: CatalogView } | { kind: "diff"; view: DiffView };
