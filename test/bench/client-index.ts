// What client-declared tools cost the Worker (worker/chat/tool-set-cache.ts): building a set (the
// canonical JSON, its hash, the token estimates and the search index) on a cache miss, the
// lookup every request pays on a hit (JSON.stringify of the tools, a Map lookup), and the heap a
// cached set holds, at 200, 1,000 and 2,000 tools (copies of the demo tools, renamed). Run in
// Node (V8, as workerd) with --expose-gc; part of `npm run bench:agent`, RESULTS.md section 7.
import { join } from "node:path";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { clientToolSet } from "../../worker/chat/tool-set-cache.ts";
import { canonicalJson } from "../../worker/core/canonical.ts";
import type { OpenAITool } from "../../worker/core/chat.ts";
import { buildClientToolSet, BYTES_PER_CHAR } from "../../worker/core/client-tools.ts";
import { openaiTool, toolDefinition } from "../../worker/core/prompt.ts";
import { ROOT } from "./catalogs.ts";
import { pinnedDemo } from "./results.ts";

export const SIZES = [200, 1000, 2000];

export interface IndexRow {
  tools: number;
  jsonBytes: number;
  /** JSON.parse of the tools alone: what the Worker pays for them anyway, for scale */
  parseMs: number;
  buildMs: number;
  hitMs: number;
  heapBytes: number;
  /** heap bytes per character of the tools' canonical JSON (BYTES_PER_CHAR estimates it) */
  bytesPerChar: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `n` client tools: the demo tools again and again, each copy renamed (`_2`, `_3`, ...). */
async function toolsOf(n: number, variant: string): Promise<OpenAITool[]> {
  const { catalog } = await readCatalogFile(join(ROOT, "catalogs", await pinnedDemo()));
  return Array.from({ length: n }, (_, i) => {
    const t = catalog.tools[i % catalog.tools.length]!;
    const copy = Math.floor(i / catalog.tools.length);
    return openaiTool({
      ...toolDefinition(t),
      name: `${t.originalName}${copy ? `_${copy + 1}` : ""}`.slice(0, 64),
      description: `${t.description} ${variant}`,
    }) as OpenAITool;
  });
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (!g) throw new Error("run with node --expose-gc (npm run bench:agent does)");
  g();
  g();
}

export async function clientIndexBench(): Promise<IndexRow[]> {
  const rows: IndexRow[] = [];
  for (const n of SIZES) {
    const builds: number[] = [];
    for (let run = 0; run < 5; run++) {
      // a new description per run: a miss every time
      const tools = await toolsOf(n, `(run ${n}-${run})`);
      const t = performance.now();
      await clientToolSet(tools);
      builds.push(performance.now() - t);
    }
    const warm = await toolsOf(n, "(warm)");
    await clientToolSet(warm);
    const hits: number[] = [];
    for (let i = 0; i < 20; i++) {
      // the request body parsed anew each time, as in the Worker
      const again = JSON.parse(JSON.stringify(warm)) as OpenAITool[];
      const t = performance.now();
      await clientToolSet(again);
      hits.push(performance.now() - t);
    }
    const json = JSON.stringify(warm);
    const parses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      JSON.parse(json);
      parses.push(performance.now() - t);
    }
    // the heap one set holds: the parsed tools, their search entries and index, the maps
    gc();
    const before = process.memoryUsage().heapUsed;
    const parsed = JSON.parse(json) as OpenAITool[];
    const lengths = parsed.map((t) => canonicalJson(t).length);
    const chars = lengths.reduce((sum, n) => sum + n, 0);
    const held = buildClientToolSet(parsed, lengths, "heap");
    gc();
    const heap = process.memoryUsage().heapUsed - before;
    if (!held.hash) throw new Error("unreachable: keeps the set alive until measured");
    rows.push({
      tools: n,
      jsonBytes: json.length,
      parseMs: median(parses),
      buildMs: median(builds),
      hitMs: median(hits),
      heapBytes: heap,
      bytesPerChar: heap / chars,
    });
  }
  return rows;
}

export function clientIndexTable(rows: IndexRow[]): string {
  const mb = (b: number) => (b / 2 ** 20).toFixed(2);
  return [
    `Client tool sets (worker/chat/tool-set-cache.ts), in Node (V8, as workerd) with --expose-gc; copies of the demo tools, renamed. A miss builds the set: canonical JSON, sha256, token estimates, the search index (built without Orama, core/tool-index.ts rankingIndex). A hit is what every request with the same tools pays: JSON.stringify of the tools, then a Map lookup by that string. JSON.parse of the same tools, which the Worker pays on every request anyway, is given for scale (the machine is shared: read the columns of one row against each other). Medians of 5 builds and 20 hits. The cache holds at most 24 MiB, estimated as BYTES_PER_CHAR = ${BYTES_PER_CHAR} heap bytes per character of canonical JSON (the last column measures it).`,
    "",
    "| client tools | request JSON | JSON.parse ms | build (miss) ms | lookup (hit) ms | heap held by the set | heap bytes per JSON char |",
    "|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.tools.toLocaleString("en-US")} | ${mb(r.jsonBytes)} MiB | ${r.parseMs.toFixed(1)} | ${r.buildMs.toFixed(1)} | ${r.hitMs.toFixed(1)} | ${mb(r.heapBytes)} MiB | ${r.bytesPerChar.toFixed(1)} |`,
    ),
  ].join("\n");
}

if (import.meta.main) console.log(clientIndexTable(await clientIndexBench()));
