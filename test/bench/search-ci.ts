// `node test/bench/search-ci.ts`: how precisely a LiveMCPBench half measures groupRecall@5. Each
// half's per-query values with and without search text (the same catalogs and ranker as
// bench:search), then a percentile bootstrap (10,000 resamples of the half's queries, a fixed
// seed, so the figures repeat): the 95% interval of the mean, and of the paired gain from the
// text. It evaluates the configuration on main; it tunes nothing.
import { join } from "node:path";
import { readQueries, resolveGold, type EvalQuery } from "../../cli/lib/eval.ts";
import { rankNames, type SearchCatalog } from "../../worker/core/search.ts";
import { BENCH_CATALOGS, EVAL_DATA, evalCatalogs, searchTextCatalogs } from "./catalogs.ts";
import { load } from "./rank-timing.ts";

const RESAMPLES = 10_000;

/** groupRecall@5 of each query, 0-1 */
function perQuery(cat: SearchCatalog, queries: EvalQuery[]): number[] {
  const byRef = resolveGold(queries, cat.tools);
  return queries.map((q) => {
    const top = rankNames(cat, q.query, 5);
    const groups = (q.gold_groups ?? q.gold.map((g) => [g])).map((g) => new Set(g.map((r) => byRef.get(r)!)));
    return groups.length ? groups.filter((g) => top.some((n) => g.has(n))).length / groups.length : 0;
  });
}

/** mulberry32: a small seeded generator, so every run resamples the same way */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The 95% percentile-bootstrap interval of the mean of `xs`, in percent. */
function interval(xs: number[], random: () => number): [number, number] {
  const means: number[] = [];
  for (let r = 0; r < RESAMPLES; r++) {
    let sum = 0;
    for (let i = 0; i < xs.length; i++) sum += xs[Math.floor(random() * xs.length)]!;
    means.push((100 * sum) / xs.length);
  }
  means.sort((a, b) => a - b);
  return [means[Math.floor(RESAMPLES * 0.025)]!, means[Math.floor(RESAMPLES * 0.975)]!];
}

const f = (n: number) => n.toFixed(1);
const mean = (xs: number[]) => (100 * xs.reduce((a, b) => a + b, 0)) / xs.length;

const cats = await evalCatalogs();
const text = await searchTextCatalogs();
const plain = (await load(join(BENCH_CATALOGS, cats.livemcpbench))).cat;
const withText = (await load(join(BENCH_CATALOGS, text.livemcpbench))).cat;
const live = await readQueries(join(EVAL_DATA, "livemcpbench/queries.jsonl"));
const half = Math.ceil(live.length / 2);
console.log(`groupRecall@5, 95% bootstrap intervals (${RESAMPLES} resamples, seed 1)`);
for (const [label, queries] of [
  ["LiveMCPBench 1st half (tuning)", live.slice(0, half)],
  ["LiveMCPBench 2nd half (held out)", live.slice(half)],
  ["LiveMCPBench, all", live],
] as const) {
  const random = seeded(1);
  const a = perQuery(plain, [...queries]);
  const b = perQuery(withText, [...queries]);
  const [lo, hi] = interval(b, random);
  const [glo, ghi] = interval(
    b.map((x, i) => x - a[i]!),
    random,
  );
  console.log(
    `${label} (${queries.length} queries): with text ${f(mean(b))} [${f(lo)}, ${f(hi)}]; without ${f(mean(a))}; gain ${f(mean(b) - mean(a))} [${f(glo)}, ${f(ghi)}]`,
  );
}
