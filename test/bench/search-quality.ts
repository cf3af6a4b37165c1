// `npm run bench:search`: search quality on the public tool-retrieval sets, toolsearch against
// the two baselines, on catalogs built by `catalog build` from ../shared/eval/data. LiveMCPBench
// is also reported by halves (file order): the first half may be used for tuning, the second not.
import { join } from "node:path";
import { oramaDefault, xcodeKeyword } from "../../cli/lib/baselines.ts";
import { evaluate, readQueries, resolveGold, type EvalQuery, type EvalResult } from "../../cli/lib/eval.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { rankNames, searchCatalog } from "../../worker/core/search.ts";
import { benchCatalogs, BENCH_CATALOGS, EVAL_DATA, evalCatalogs, ROOT } from "./catalogs.ts";

const demoCatalog = async () => (await benchCatalogs())[0]!.file;

export interface QualityRow {
  set: string;
  catalog: string;
  queries: number;
  ranker: string;
  result: EvalResult;
}

async function run(set: string, file: string, queries: EvalQuery[], baselines: boolean): Promise<QualityRow[]> {
  const { catalog, index } = await readCatalogFile(join(BENCH_CATALOGS, file));
  const byRef = resolveGold(queries, catalog.tools);
  const cat = searchCatalog(catalog.tools, index);
  const label = `${catalog.name} (${catalog.tools.length} tools)`;
  const rows: QualityRow[] = [{ set, catalog: label, queries: queries.length, ranker: "toolsearch", result: evaluate(queries, byRef, (q, k) => rankNames(cat, q, k)) }];
  if (baselines) {
    rows.push({ set, catalog: label, queries: queries.length, ranker: "xcode-keyword", result: evaluate(queries, byRef, xcodeKeyword(catalog.tools)) });
    rows.push({ set, catalog: label, queries: queries.length, ranker: "orama-default", result: evaluate(queries, byRef, oramaDefault(catalog.tools)) });
  }
  return rows;
}

export async function searchQuality(baselines = true): Promise<QualityRow[]> {
  const cats = await evalCatalogs();
  const live = await readQueries(join(EVAL_DATA, "livemcpbench/queries.jsonl"));
  const tool = await readQueries(join(EVAL_DATA, "toolbench/queries.jsonl"));
  const half = Math.ceil(live.length / 2);
  return [
    ...(await run("LiveMCPBench", cats.livemcpbench, live, baselines)),
    ...(await run("LiveMCPBench 1st half (tuning)", cats.livemcpbench, live.slice(0, half), false)),
    ...(await run("LiveMCPBench 2nd half (held out)", cats.livemcpbench, live.slice(half), false)),
    ...(await run("ToolBench", cats.toolbench, tool, baselines)),
    ...(await run("demo: model-style short queries", await demoCatalog(), await readQueries(join(ROOT, "test/bench/queries/demo-short.jsonl")), baselines)),
    ...(await run("demo: Chinese queries", await demoCatalog(), await readQueries(join(ROOT, "test/bench/queries/demo-zh.jsonl")), baselines)),
    ...(await run("LiveMCPBench in combined", cats.combined, live, false)),
    ...(await run("ToolBench in combined", cats.combined, tool, false)),
  ];
}

if (import.meta.main) {
  for (const r of await searchQuality(process.argv[2] !== "--no-baselines")) {
    const m = r.result.metrics;
    console.log(`${r.set.padEnd(34)} ${r.ranker.padEnd(14)} gR@5 ${String(m["groupRecall@5"]).padStart(5)}  s@1 ${String(m["success@1"]).padStart(5)}  s@5 ${String(m["success@5"]).padStart(5)}  mrr ${m["mrr@10"]}  p99 ${r.result.latency.p99Ms} ms`);
  }
  process.exit(0);
}
