// Section 1 of `npm run bench`: context tokens. Full injection against each listing form's
// section and the deferred prompt `auto` gives at 128k (section + toolSearch + core tools), from
// `catalog stats` (js-tiktoken, both encodings); then what `auto` picks at other budget shares
// and windows, the evidence for the default budget (docs/http-api.md).
import { join } from "node:path";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { catalogStats, type CatalogStats } from "../../cli/lib/stats.ts";
import { chooseListing } from "../../worker/core/listing-choice.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { openaiTool, TOOL_SEARCH_TOOL, toolsBytes } from "../../worker/core/prompt.ts";
import { tokenCounter } from "../../cli/lib/tokens.ts";
import { BENCH_CATALOGS, evalCatalogs, type BenchCatalog } from "./catalogs.ts";
import { table } from "./results.ts";

const pct = (n: number, d = 2) => `${(n * 100).toFixed(d)}%`;
const SHARES = [0.01, 0.02, 0.03, 0.05];
const WINDOWS = [32_000, 128_000, 200_000, 400_000];

/** The form auto picks for these sections with `share` of `window`, and its section's tokens. */
function pick(s: CatalogStats, window: number, share: number): string {
  const { form } = chooseListing("auto", s.tokens.sections, { tokens: Math.floor(window * share + 1e-9), what: "" });
  return `${form} ${s.tokens.sections[form]}`;
}

export async function tokensSection(catalogs: BenchCatalog[]): Promise<string> {
  const live = (await evalCatalogs()).livemcpbench;
  const all = [catalogs[0]!, { label: "livemcpbench (525)", file: live, tools: 525 }, ...catalogs.slice(1)];
  const rows = [];
  const stats: Record<string, CatalogStats> = {};
  for (const c of all) {
    const { catalog } = await readCatalogFile(join(BENCH_CATALOGS, c.file));
    for (const encoding of ["o200k_base", "cl100k_base"] as const) {
      const s = await catalogStats(catalog, { encoding });
      if (encoding === "o200k_base") stats[c.label] = s;
      const t = s.tokens;
      rows.push([
        c.label,
        encoding,
        s.tools,
        s.servers,
        t.full,
        t.sections.names,
        t.sections.grouped,
        t.sections.servers,
        t.sections.none,
        t.auto.form,
        t.deferred,
        pct(t.ratio),
      ]);
    }
  }
  const choices = all.map((c) => {
    const s = stats[c.label]!;
    return [
      c.label,
      ...SHARES.map((share) => pick(s, 128_000, share)),
      ...WINDOWS.filter((w) => w !== 128_000).map((w) => pick(s, w, DEFAULT_POLICY.listingBudget)),
    ];
  });
  const demo = stats[all[0]!.label]!;
  const combined = stats[all[2]!.label]!;
  const toolSearch = (await tokenCounter("o200k_base"))(toolsBytes([openaiTool(TOOL_SEARCH_TOOL)]));
  const noneMax = Math.max(...Object.values(stats).map((s) => s.tokens.sections.none));
  const d = demo.tokens.sections;
  return [
    "## 1. Context tokens",
    "",
    "Full injection: every tool in OpenAI `tools` form. Listing forms: the system section alone (`names`: every name; `grouped`: a line per server with its tools' short names; `servers`: a line per server with its tool count and summary; `none`: counts and how to search). Deferred prompt: the section `auto` picks at 128k (2% budget, 2,560 tokens) + `toolSearch` + core tools. From `catalog stats` (js-tiktoken).",
    "",
    table(
      [
        "catalog",
        "encoding",
        "tools",
        "servers",
        "full injection",
        "names",
        "grouped",
        "servers",
        "none",
        "auto at 128k",
        "deferred prompt",
        "deferred / full",
      ],
      rows,
    ),
    "",
    `Targets (o200k_base): 3,004 tools at 128k, auto's deferred prompt ${pct(combined.tokens.ratio)} of full (<= 2%: ${combined.tokens.ratio <= 0.02 ? "met" : "missed"}); demo grouped ${pct(d.grouped / d.names, 1)} of names (<= 60%: ${d.grouped <= 0.6 * d.names ? "met" : "missed"}); demo servers ${(d.servers / demo.servers).toFixed(1)} tokens per server (<= 40: ${d.servers <= 40 * demo.servers ? "met" : "missed"}); none at most ${noneMax} tokens at any size, ${noneMax + toolSearch} with the toolSearch tool (<= 300: ${noneMax + toolSearch <= 300 ? "met" : "missed"}); the demo keeps names at 128k (${demo.tokens.auto.form === "names" ? "met" : "missed"}).`,
    "",
    "What `auto` picks, and that form's section tokens, by budget share at 128k and by window at the default 2% (o200k_base):",
    "",
    table(
      ["catalog", ...SHARES.map((s) => `${pct(s, 0)} of 128k`), ...WINDOWS.filter((w) => w !== 128_000).map((w) => `2% of ${w / 1000}k`)],
      choices,
    ),
    "",
  ].join("\n");
}
