// bench:search, beyond the ranking table: search alone where no names are listed (the form
// `auto` picks at 128k for each catalog; the demo's short and Chinese queries in the combined
// catalog with the demo's tools added, 3,195 tools), and server text in the index measured both
// ways: each server's title and description (the catalog's fields), and the servers listing's
// summary line, in the server field of its tools.
import { join } from "node:path";
import { evaluate, resolveGold, type EvalQuery } from "../../cli/lib/eval.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import type { Catalog, CatalogServer } from "../../worker/core/catalog.ts";
import { chooseListing, listingBudget } from "../../worker/core/listing-choice.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { rankNames, searchCatalog, type SearchCatalog } from "../../worker/core/search.ts";
import { toolSearchText } from "../../worker/core/search-text.ts";
import { buildIndex, restoreIndex } from "../../worker/core/tool-index.ts";
import { BENCH_CATALOGS, evalWithDemo, ROOT } from "./catalogs.ts";
import { table } from "./results.ts";

/** What bench:search loaded: catalog files and query sets. */
export interface Inputs {
  cats: Record<"livemcpbench" | "toolbench" | "combined", string>;
  at: (file: string) => string;
  demoFile: string;
  live: EvalQuery[];
  half: number;
  tool: EvalQuery[];
  short: EvalQuery[];
  zh: EvalQuery[];
}

/** The form `auto` picks for a catalog's deferred tools in a 128k window with the default budget. */
export function autoForm(catalog: Catalog): string {
  return chooseListing("auto", catalog.listing.sections, listingBudget(DEFAULT_POLICY, { model: "any", contextWindow: 128_000 })).form;
}

type ServerText = "none" | "descriptions" | "summaries";
const TEXT: Record<Exclude<ServerText, "none">, (s: CatalogServer | undefined) => Array<string | undefined>> = {
  descriptions: (s) => [s?.title, s?.description],
  summaries: (s) => [s?.summary],
};

/** A catalog searched as toolSearch does: its index as built, or rebuilt with server text. */
function searchable(catalog: Catalog, index: SearchCatalog["index"], text: ServerText): SearchCatalog {
  if (text === "none") return searchCatalog(catalog.tools, index);
  const servers = new Map(catalog.servers.map((s) => [s.name, s]));
  const docs = catalog.tools.map((t) => ({
    ...toolSearchText(t),
    server: [t.server, ...TEXT[text](servers.get(t.server))].filter(Boolean).join(" "),
  }));
  return searchCatalog(catalog.tools, restoreIndex(JSON.parse(JSON.stringify(buildIndex(catalog.tools, docs))), catalog.tools));
}

/** The set's metrics, and groupRecall@5 per query. */
function score(cat: SearchCatalog, queries: EvalQuery[]) {
  const byRef = resolveGold(queries, cat.tools);
  const rank = (q: string, k: number) => rankNames(cat, q, k);
  return {
    metrics: evaluate(queries, byRef, rank).metrics,
    perQuery: queries.map((q) => evaluate([q], byRef, rank).metrics["groupRecall@5"]!),
  };
}

interface VariantSet {
  set: string;
  path: string;
  queries: EvalQuery[];
  heldOut?: boolean;
}

/** Server text in the index, both ways: groupRecall@5 and success@1 per variant, and queries better / worse with descriptions. */
async function serverText(sets: VariantSet[]): Promise<{ table: string; tuning: { better: number; worse: number; gain: number } }> {
  const rows = [];
  const tuning = { better: 0, worse: 0, gain: 0 };
  for (const s of sets) {
    const { catalog, index } = await readCatalogFile(s.path);
    const described = catalog.servers.filter((x) => x.description || x.title).length;
    const [none, desc, summ] = (["none", "descriptions", "summaries"] as const).map((t) => score(searchable(catalog, index, t), s.queries));
    const better = desc!.perQuery.filter((v, i) => v > none!.perQuery[i]!).length;
    const worse = desc!.perQuery.filter((v, i) => v < none!.perQuery[i]!).length;
    if (s.set === "LiveMCPBench 1st half (tuning)")
      Object.assign(tuning, {
        better,
        worse,
        gain: Math.round((desc!.metrics["groupRecall@5"]! - none!.metrics["groupRecall@5"]!) * 10) / 10,
      });
    const m = (k: string) => [none, desc, summ].map((r) => r!.metrics[k]!).join(" / ");
    rows.push([
      s.heldOut ? `${s.set} (held out)` : s.set,
      `${described} of ${catalog.servers.length}`,
      s.queries.length,
      m("groupRecall@5"),
      m("success@1"),
      `${better} / ${worse}`,
    ]);
  }
  const head = [
    "set",
    "servers with a title or description",
    "queries",
    "groupRecall@5: as built / + descriptions / + summaries",
    "success@1: as built / + descriptions / + summaries",
    "queries better / worse with descriptions",
  ];
  return { table: table(head, rows), tuning };
}

/** The demo's queries in the combined catalog with the demo's tools on demo-<server>: gold there, or the eval twin of the same server and tool. */
async function searchOnly(path: string, sets: Array<[string, EvalQuery[]]>): Promise<string> {
  const { catalog, index } = await readCatalogFile(path);
  const cat = searchCatalog(catalog.tools, index);
  const refs = new Set(catalog.tools.map((t) => `${t.server}/${t.originalName}`));
  const rows = [];
  for (const [set, queries] of sets) {
    const twins = (g: string) => [`demo-${g}`, ...(refs.has(g) ? [g] : [])];
    const moved = queries.map((q) => ({ ...q, gold: q.gold.flatMap(twins), gold_groups: q.gold.map(twins) }));
    const { metrics } = score(cat, moved);
    rows.push([
      set,
      `${catalog.name} (${catalog.tools.length} tools, ${catalog.servers.length} servers)`,
      autoForm(catalog),
      queries.length,
      metrics["groupRecall@5"]!,
      metrics["success@1"]!,
      metrics["success@5"]!,
    ]);
  }
  return table(["set", "catalog", "auto at 128k", "queries", "groupRecall@5", "success@1", "success@5"], rows);
}

/** Section 6's subsections: no names shown, and server text in the index. */
export async function variantsSection(inp: Inputs): Promise<string> {
  const { cats, at, demoFile, live, half, tool, short, zh } = inp;
  const demo = join(ROOT, "catalogs", demoFile);
  const forms = [];
  for (const [label, path] of [
    ["demo", demo],
    ["livemcpbench", at(cats.livemcpbench)],
    ["toolbench", at(cats.toolbench)],
    ["eval3004 (combined)", at(cats.combined)],
  ] as const) {
    forms.push(`${label} ${autoForm((await readCatalogFile(path)).catalog)}`);
  }
  const alone = await searchOnly(join(BENCH_CATALOGS, await evalWithDemo(demoFile)), [
    ["demo: model-style short queries, search only", short],
    ["demo: Chinese queries, search only", zh],
  ]);
  const measured = await serverText([
    { set: "LiveMCPBench 1st half (tuning)", path: at(cats.livemcpbench), queries: live.slice(0, half) },
    { set: "ToolBench", path: at(cats.toolbench), queries: tool },
    { set: "LiveMCPBench 1st half in combined", path: at(cats.combined), queries: live.slice(0, half) },
    { set: "ToolBench in combined", path: at(cats.combined), queries: tool },
    { set: "demo: model-style short queries", path: demo, queries: short },
    { set: "LiveMCPBench 2nd half", path: at(cats.livemcpbench), queries: live.slice(half), heldOut: true },
    { set: "LiveMCPBench 2nd half in combined", path: at(cats.combined), queries: live.slice(half), heldOut: true },
  ]);
  const t = measured.tuning;
  return [
    "### No names shown: search carries the load",
    "",
    `No row above shows the model a name: every figure is search alone, all a model has in the \`servers\` and \`none\` listings. What \`auto\` lists at 128k with the default budget (2% of the window): ${forms.join(", ")}. The demo's query sets again, in the combined catalog with the demo's 191 tools added on servers named demo-<server> (gold: the demo tool, or the eval tool of the same server and name where there is one):`,
    "",
    alone,
    "",
    "### Server text in the index (measured, not kept)",
    "",
    "Added to the server field of each server's tools: its title and description (the catalog's own fields: LiveMCPBench rows carry them in `_meta`, ToolBench rows do not, three demo servers send one), or the servers listing's summary line (the description's first sentence, else the title and the server's most distinctive tool-name words, else those words). Decided on the tuning sets; the held-out rows are the final report.",
    "",
    measured.table,
    "",
    `Not kept. Descriptions: ${t.gain >= 0 ? "+" : ""}${t.gain} groupRecall@5 on the LiveMCPBench tuning half is ${t.better} queries better and ${t.worse} worse out of ${live.slice(0, half).length}, which a sign test does not tell from noise, and in the combined catalog (where a large catalog puts the load on search) the change is within a query or two; the held-out rows show whether it generalizes. (The held-out aggregate was printed in the same first exploratory run as the tuning figures; the decision rests on the tuning rows.) Summaries: they help ToolBench, whose servers say nothing and get tool-name words, but cost LiveMCPBench in the combined catalog and the short queries' success@1.`,
  ].join("\n");
}
