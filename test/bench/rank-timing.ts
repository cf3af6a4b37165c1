// Ranking latency as bench:search measures it (search-quality.ts, search-text-cost.ts): fresh
// restores of a catalog file, a GC after each, a cold and a warm pass, p99 pooled over rounds.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { EvalQuery } from "../../cli/lib/eval.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { rankNames, searchCatalog, type SearchCatalog } from "../../worker/core/search.ts";

/** A fresh restore of a catalog file (fresh: its word cache is empty, as in a new isolate). */
export async function load(path: string): Promise<{ cat: SearchCatalog; label: string }> {
  const { catalog, index } = await readCatalogFile(path);
  return { cat: searchCatalog(catalog.tools, index), label: `${catalog.name} (${catalog.tools.length} tools)` };
}

setFlagsFromString("--expose-gc");
/** A full GC: the restore's own allocations are collected before timing (their cost is cold start, section 2). */
const gc = runInNewContext("gc") as () => void;

const p99 = (xs: number[]) =>
  Math.round([...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))]! * 1000) / 1000;
const ROUNDS = 3;

/**
 * Ranking latency of toolsearch, pooled over ROUNDS fresh restores: `cold` is each restore's
 * first pass (JIT already warm from the previous rounds or a warm-up copy, word cache empty),
 * `warm` its second pass. Pooling keeps one stall of the shared machine from being the p99.
 * A GC after each restore: else the first scavenge of a timed pass copies the freshly parsed
 * catalog (10-20 ms at 3,004 tools), a cost of loading, not of ranking.
 */
export async function latency(path: string, queries: EvalQuery[]): Promise<{ cold: number; warm: number }> {
  const warmUp = await load(path);
  for (const q of queries) rankNames(warmUp.cat, q.query, 10);
  const cold: number[] = [];
  const warm: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const { cat } = await load(path);
    gc();
    for (const times of [cold, warm]) {
      for (const q of queries) {
        const t = performance.now();
        rankNames(cat, q.query, 10);
        times.push(performance.now() - t);
      }
    }
  }
  void warmUp.cat.tools.length; // kept alive until here: its collection is not the timed passes' cost
  return { cold: p99(cold), warm: p99(warm) };
}
