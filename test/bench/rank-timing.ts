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
 * Ranking latency of toolsearch, pooled over `rounds` fresh restores: `cold` is each restore's
 * first pass (JIT already warm from the previous rounds or a warm-up copy, word cache empty),
 * `warm` its second pass. Pooling keeps one stall of the shared machine from being the p99.
 * A GC after each restore: else the first scavenge of a timed pass copies the freshly parsed
 * catalog (10-20 ms at 3,004 tools), a cost of loading, not of ranking. Several files are taken
 * in turn, round by round, so a slow spell of the machine falls on all of them alike.
 */
export async function latencies(paths: string[], queries: EvalQuery[], rounds = ROUNDS): Promise<Array<{ cold: number; warm: number }>> {
  const warmUps = await Promise.all(paths.map(load));
  for (const w of warmUps) for (const q of queries) rankNames(w.cat, q.query, 10);
  const times = paths.map(() => ({ cold: [] as number[], warm: [] as number[] }));
  for (let r = 0; r < rounds; r++) {
    for (const [i, path] of paths.entries()) {
      const { cat } = await load(path);
      gc();
      for (const pass of [times[i]!.cold, times[i]!.warm]) {
        for (const q of queries) {
          const t = performance.now();
          rankNames(cat, q.query, 10);
          pass.push(performance.now() - t);
        }
      }
    }
  }
  void warmUps.length; // kept alive until here: their collection is not the timed passes' cost
  return times.map((t) => ({ cold: p99(t.cold), warm: p99(t.warm) }));
}

/** latencies() of one file. */
export async function latency(path: string, queries: EvalQuery[]): Promise<{ cold: number; warm: number }> {
  return (await latencies([path], queries))[0]!;
}
