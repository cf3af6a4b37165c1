// Cold start and memory. In workerd (wrangler dev): per catalog, the latency of reading the
// asset, JSON.parse, the Worker's full load (hash check + parse + index restore) and rebuilding
// the index with insertMultiple, each minus the no-op route, median of N runs. In Node: the
// retained heap after a load (the same V8 objects workerd holds).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { verifyCatalog } from "../../worker/core/catalog.ts";
import { BENCH_CATALOGS, BENCH_WORK, ROOT, type BenchCatalog } from "./catalogs.ts";
import { wranglerDev } from "./wrangler-dev.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed(url: string, runs: number): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = await fetch(url);
    await r.text();
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** The same comparison in Node, where GC placement is easier to keep out: median of 5 interleaved rounds. */
export async function nodeParseAndLoad(file: string): Promise<{ parseMs: number; loadMs: number }> {
  const bytes = new Uint8Array(await readFile(join(BENCH_CATALOGS, file)));
  const p: number[] = [];
  const l: number[] = [];
  for (let i = 0; i < 5; i++) {
    (globalThis as { gc?: () => void }).gc?.();
    let t = performance.now();
    JSON.parse(new TextDecoder().decode(bytes));
    p.push(performance.now() - t);
    (globalThis as { gc?: () => void }).gc?.();
    t = performance.now();
    await verifyCatalog(bytes);
    l.push(performance.now() - t);
  }
  return { parseMs: median(p), loadMs: median(l) };
}

export async function retainedHeapMiB(file: string): Promise<number> {
  const bytes = new Uint8Array(await readFile(join(BENCH_CATALOGS, file)));
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return NaN;
  gc();
  const before = process.memoryUsage().heapUsed;
  const loaded = await verifyCatalog(bytes);
  const { index: _serialized, ...kept } = loaded.catalog; // the Worker lets the serialized index go
  gc();
  const after = process.memoryUsage().heapUsed;
  void [kept, loaded.index];
  return (after - before) / 1048576;
}

export interface ColdRow {
  catalog: string;
  tools: number;
  fileMiB: number;
  readMs: number;
  parseMs: number;
  loadMs: number;
  rebuildMs: number;
  heapMiB: number;
  nodeParseMs: number;
  nodeLoadMs: number;
}

export async function coldStart(catalogs: BenchCatalog[], runs = 15): Promise<ColdRow[]> {
  const toml = `name = "toolsearch-bench"\nmain = "${join(ROOT, "test/bench/cold-worker.ts")}"\ncompatibility_date = "2026-11-01"\n[assets]\ndirectory = "${BENCH_CATALOGS}"\nbinding = "ASSETS"\nrun_worker_first = true\n`;
  const dev = await wranglerDev(toml, join(BENCH_WORK, "wrangler.cold.toml"));
  const rows: ColdRow[] = [];
  try {
    for (const c of catalogs) {
      const q = `file=${encodeURIComponent(c.file)}`;
      await timed(`${dev.url}/load?${q}`, 1); // warm the code paths once
      // interleaved rounds: garbage from one step's runs must not land on another step's timings
      const samples: Record<string, number[]> = { noop: [], read: [], parse: [], load: [] };
      for (let i = 0; i < runs; i++) {
        for (const step of ["noop", "read", "parse", "load"]) samples[step]!.push(await timed(`${dev.url}/${step}?${q}`, 1));
      }
      const [noop, read, parse, load] = ["noop", "read", "parse", "load"].map((s) => median(samples[s]!)) as [
        number,
        number,
        number,
        number,
      ];
      const rebuild = await timed(`${dev.url}/rebuild?${q}`, 3);
      const size = (await readFile(join(BENCH_CATALOGS, c.file))).length;
      rows.push({
        catalog: c.label,
        tools: c.tools,
        fileMiB: size / 1048576,
        readMs: read - noop,
        parseMs: parse - noop,
        loadMs: load - noop,
        rebuildMs: rebuild - noop,
        heapMiB: await retainedHeapMiB(c.file),
        ...Object.fromEntries(
          Object.entries(await nodeParseAndLoad(c.file)).map(([k, v]) => [`node${k[0]!.toUpperCase()}${k.slice(1)}`, v]),
        ),
      } as ColdRow);
      console.error(`cold start: ${c.label} done`);
    }
  } finally {
    await dev.stop();
  }
  return rows;
}
