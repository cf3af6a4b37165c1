// Tuning loop for search text (issue 27): the TUNING sets only (LiveMCPBench's first half, alone
// and in the combined catalog; ToolBench in the combined catalog with and without text; the demo
// query sets; the client-tools union case). Never the held-out half: bench:search reports that.
//   node test/bench/search-tune.ts        (ROWS=a,b: only the rows whose label contains a or b)
import { join } from "node:path";
import { evaluate, readQueries, resolveGold, type EvalQuery } from "../../cli/lib/eval.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { rankNames, searchCatalog, type SearchCatalog } from "../../worker/core/search.ts";
import { EVAL_DATA, BENCH_CATALOGS, evalCatalogs, ROOT, searchTextCatalogs } from "./catalogs.ts";
import { pinnedDemo } from "./results.ts";

async function open(path: string): Promise<SearchCatalog> {
  const { catalog, index } = await readCatalogFile(path);
  return searchCatalog(catalog.tools, index);
}

function metrics(cat: SearchCatalog, queries: EvalQuery[]) {
  const byRef = resolveGold(queries, cat.tools);
  return evaluate(queries, byRef, (q, k) => rankNames(cat, q, k)).metrics;
}

const cats = await evalCatalogs();
const text = await searchTextCatalogs();
const at = (f: string) => join(BENCH_CATALOGS, f);
const live = await readQueries(join(EVAL_DATA, "livemcpbench/queries.jsonl"));
const tuning = live.slice(0, Math.ceil(live.length / 2));
const tool = await readQueries(join(EVAL_DATA, "toolbench/queries.jsonl"));
const short = await readQueries(join(ROOT, "test/bench/queries/demo-short.jsonl"));
const zh = await readQueries(join(ROOT, "test/bench/queries/demo-zh.jsonl"));
const demo = await open(join(ROOT, "catalogs", await pinnedDemo()));
const liveText = await open(at(text.livemcpbench));
const combined = await open(at(cats.combined));
const combinedText = await open(at(text.combined));

const rows: Array<[string, SearchCatalog, EvalQuery[]]> = [
  ["live 1st half + text", liveText, tuning],
  ["live 1st half in combined + text", combinedText, tuning],
  ["toolbench in combined", combined, tool],
  ["toolbench in combined + text", combinedText, tool],
  ["demo short + text", demo, short],
  ["demo zh + text", demo, zh],
];
const only = process.env.ROWS;
for (const [label, cat, queries] of rows.filter(([l]) => !only || only.split(",").some((x) => l.includes(x)))) {
  const m = metrics(cat, queries);
  console.log(
    `${label.padEnd(36)} gR@5 ${String(m["groupRecall@5"]).padStart(5)}  s@1 ${String(m["success@1"]).padStart(5)}  s@5 ${String(m["success@5"]).padStart(5)}`,
  );
}
