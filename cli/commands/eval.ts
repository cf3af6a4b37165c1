// catalog eval: search quality of a catalog against a query set with gold tools.

import { defineCommand } from "citty";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { rankNames, searchCatalog } from "../../worker/core/search.ts";
import { catalogArg, jsonArg, out } from "../args.ts";
import { oramaDefault, xcodeKeyword } from "../lib/baselines.ts";
import { evaluate, readQueries, resolveGold, type EvalResult } from "../lib/eval.ts";
import { readCatalogFile } from "../lib/files.ts";

export default defineCommand({
  meta: {
    name: "eval",
    description:
      'Score toolSearch on a query file (JSONL: {id, query, gold: ["<server>/<tool>"], gold_groups?}): success@k, groupRecall@k, mrr@10 and latency; --baselines adds xcode-keyword and orama-default on the same catalog.',
  },
  args: {
    catalog: catalogArg,
    queries: { type: "string", description: "Query file (JSONL)", required: true, valueHint: "file.jsonl" },
    k: { type: "string", description: "Cut-offs, comma-separated", default: "1,5,10" },
    baselines: { type: "boolean", description: "Also run the xcode-keyword and orama-default baselines", default: false },
    json: jsonArg,
  },
  async run({ args }) {
    const ks = args.k.split(",").map((s) => Number(s.trim()));
    if (ks.some((k) => !Number.isInteger(k) || k < 1 || k > 100))
      throw new ToolsearchError("bad_request", `--k must be integers from 1 to 100, got "${args.k}"`);
    const { catalog, index } = await readCatalogFile(args.catalog);
    const queries = await readQueries(args.queries);
    const byRef = resolveGold(queries, catalog.tools);
    const cat = searchCatalog(catalog.tools, index);
    const result: EvalResult & { baselines?: Record<string, EvalResult> } = evaluate(queries, byRef, (q, k) => rankNames(cat, q, k), ks);
    if (args.baselines) {
      result.baselines = {
        "xcode-keyword": evaluate(queries, byRef, xcodeKeyword(catalog.tools), ks),
        "orama-default": evaluate(queries, byRef, oramaDefault(catalog.tools), ks),
      };
    }
    if (args.json) return out(JSON.stringify(result, null, 2));
    const names = Object.keys(result.metrics);
    out(`${result.queries} queries on ${catalog.name}@${catalog.version} (${catalog.tools.length} tools)`);
    out(`${"ranker".padEnd(16)}${names.map((n) => n.padStart(16)).join("")}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}`);
    const row = (name: string, r: EvalResult) =>
      out(
        `${name.padEnd(16)}${names.map((n) => String(r.metrics[n]).padStart(16)).join("")}${String(r.latency.p50Ms).padStart(10)}${String(r.latency.p99Ms).padStart(10)}`,
      );
    row("toolsearch", result);
    for (const [name, r] of Object.entries(result.baselines ?? {})) row(name, r);
  },
});
