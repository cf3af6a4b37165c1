// `catalog eval` as a library: read a query file (`{id, query, gold, gold_groups?}` per line),
// resolve gold references (`<server>/<original tool name>`) through each tool's server and
// originalName, rank every query, and score success@k, groupRecall@k, mrr@10 and latency.

import { readFile } from "node:fs/promises";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";
import type { Ranker } from "./baselines.ts";

export interface EvalQuery {
  id: string;
  query: string;
  gold: string[];
  gold_groups?: string[][];
}

export interface Metrics {
  [name: string]: number;
}

export interface EvalResult {
  queries: number;
  metrics: Metrics;
  latency: { p50Ms: number; p99Ms: number };
}

function bad(message: string): never {
  throw new ToolsearchError("bad_request", message);
}

export async function readQueries(path: string): Promise<EvalQuery[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    bad(`cannot read queries ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const queries: EvalQuery[] = [];
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    let row: EvalQuery;
    try {
      row = JSON.parse(line) as EvalQuery;
    } catch (e) {
      bad(`${path} line ${i + 1} is not valid JSON (${(e as Error).message})`);
    }
    if (!row || typeof row.query !== "string" || !Array.isArray(row.gold) || row.gold.some((g) => typeof g !== "string")) {
      bad(`${path} line ${i + 1}: needs "query" (string) and "gold" (array of "<server>/<tool>")`);
    }
    if (row.gold_groups !== undefined && (!Array.isArray(row.gold_groups) || row.gold_groups.some((g) => !Array.isArray(g)))) {
      bad(`${path} line ${i + 1}: "gold_groups" must be an array of arrays`);
    }
    queries.push({ ...row, id: String(row.id ?? i + 1) });
  }
  if (!queries.length) bad(`${path} holds no queries`);
  return queries;
}

/** Map every gold reference to an exposed name; unresolvable references are one error naming them. */
export function resolveGold(queries: readonly EvalQuery[], tools: readonly CatalogTool[]): Map<string, string> {
  const byRef = new Map(tools.map((t) => [`${t.server}/${t.originalName}`, t.name]));
  const missing = new Set<string>();
  for (const q of queries) for (const g of [...q.gold, ...(q.gold_groups ?? []).flat()]) if (!byRef.has(g)) missing.add(g);
  if (missing.size) {
    const list = [...missing];
    bad(
      `${list.length} gold reference${list.length > 1 ? "s" : ""} not in the catalog: ${list
        .slice(0, 5)
        .map((m) => JSON.stringify(m))
        .join(", ")}${list.length > 5 ? ", ..." : ""}`,
    );
  }
  return byRef;
}

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] ?? 0;
const round = (n: number, d: number) => Math.round(n * 10 ** d) / 10 ** d;

export function evaluate(
  queries: readonly EvalQuery[],
  byRef: ReadonlyMap<string, string>,
  rank: Ranker,
  ks: readonly number[] = [1, 5, 10],
): EvalResult {
  const maxK = Math.max(10, ...ks);
  const sums: Record<string, number> = {};
  const add = (k: string, v: number) => (sums[k] = (sums[k] ?? 0) + v);
  const times: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const ranked = rank(q.query, maxK);
    times.push(performance.now() - t);
    const gold = new Set(q.gold.map((g) => byRef.get(g)!));
    const groups = (q.gold_groups ?? q.gold.map((g) => [g])).map((g) => new Set(g.map((r) => byRef.get(r)!)));
    for (const k of ks) {
      const top = ranked.slice(0, k);
      add(`success@${k}`, top.some((n) => gold.has(n)) ? 1 : 0);
      add(`groupRecall@${k}`, groups.length ? groups.filter((g) => top.some((n) => g.has(n))).length / groups.length : 0);
    }
    const first = ranked.slice(0, 10).findIndex((n) => gold.has(n));
    add("mrr@10", first >= 0 ? 1 / (first + 1) : 0);
  }
  const metrics: Metrics = {};
  for (const [k, v] of Object.entries(sums))
    metrics[k] = k === "mrr@10" ? round(v / queries.length, 4) : round((100 * v) / queries.length, 1);
  return { queries: queries.length, metrics, latency: { p50Ms: round(percentile(times, 50), 3), p99Ms: round(percentile(times, 99), 3) } };
}
