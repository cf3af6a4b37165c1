// toolSearch latency over HTTP on 127.0.0.1 against the real Worker in wrangler dev: `select:` and
// keyword searches against /healthz (the cheapest route of the same Worker), p50/p99 over N
// sequential requests per point, per catalog size.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BENCH_CATALOGS, BENCH_WORK, ROOT, type BenchCatalog } from "./catalogs.ts";
import { writeWorkerFiles } from "../../cli/lib/worker-files.ts";
import { DEV_AUTH, wranglerDev } from "./wrangler-dev.ts";

export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

const KEYWORDS = [
  "create issue github",
  "take a screenshot of the page",
  "stock price today",
  "weather forecast for a city",
  "send an email",
  "list files in directory",
  "search the web for news",
  "convert currency rates",
];

export interface LatencyRow {
  catalog: string;
  tools: number;
  route: string;
  p50: number;
  p99: number;
}

/** A wrangler config of the project's Worker with `catalogFile` (of BENCH_CATALOGS) bundled and pinned. */
export async function workerToml(catalogFile: string): Promise<string> {
  const dir = join(BENCH_WORK, `entry-${catalogFile}`);
  await writeWorkerFiles(BENCH_CATALOGS, join(dir, "files.ts"), [catalogFile]);
  const main = join(dir, "main.ts");
  const entry = `import { useFiles } from ${JSON.stringify(join(ROOT, "worker/files.ts"))};\nimport { files } from "./files.ts";\nuseFiles(files);\nexport { default, SessionDO } from ${JSON.stringify(join(ROOT, "worker/index.ts"))};\n`;
  await writeFile(main, entry);
  return `name = "toolsearch-bench"\nmain = "${main}"\ncompatibility_date = "2026-11-01"\n[vars]\nCATALOG = "${catalogFile}"\nSESSION_TTL_SECONDS = "604800"\n[[durable_objects.bindings]]\nname = "SESSIONS"\nclass_name = "SessionDO"\n[[migrations]]\ntag = "v1"\nnew_sqlite_classes = ["SessionDO"]\n[[d1_databases]]\nbinding = "AUDIT"\ndatabase_name = "toolsearch-audit"\ndatabase_id = "00000000-0000-0000-0000-000000000000"\nmigrations_dir = "${join(ROOT, "worker/migrations")}"\n`;
}

async function measure(n: number, send: (i: number) => Promise<Response>): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await send(i);
    await r.arrayBuffer();
    if (!r.ok) throw new Error(`status ${r.status}`);
    ms.push(performance.now() - t);
  }
  return { p50: pct(ms, 50), p99: pct(ms, 99) };
}

async function loadNames(c: BenchCatalog): Promise<string[]> {
  const cat = JSON.parse(await readFile(join(BENCH_CATALOGS, c.file), "utf8")) as { tools: Array<{ name: string }> };
  return cat.tools.map((t) => t.name);
}

export async function latency(catalogs: BenchCatalog[], n = 2000): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  for (const c of catalogs) {
    const dev = await wranglerDev(await workerToml(c.file), join(BENCH_WORK, "wrangler.latency.toml"));
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${dev.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...DEV_AUTH },
          body: JSON.stringify(body),
        });
      const session = (await (await post("/v1/sessions", { model: "gpt-5", deferral: "on" })).json()) as { id: string };
      const names = await loadNames(c);
      await measure(50, () => fetch(`${dev.url}/healthz`)); // warm up
      const noop = await measure(n, () => fetch(`${dev.url}/healthz`));
      const select = await measure(n, (i) =>
        post(`/v1/sessions/${session.id}/tool-search`, { query: `select:${names[i % names.length]}` }),
      );
      const keyword = await measure(n, (i) => post(`/v1/sessions/${session.id}/tool-search`, { query: KEYWORDS[i % KEYWORDS.length] }));
      for (const [route, m] of [
        ["GET /healthz (no-op)", noop],
        ["tool-search select:", select],
        ["tool-search keywords", keyword],
      ] as const) {
        rows.push({ catalog: c.label, tools: c.tools, route, p50: m.p50, p99: m.p99 });
      }
      console.error(`latency: ${c.label} done`);
    } finally {
      await dev.stop();
    }
  }
  return rows;
}
