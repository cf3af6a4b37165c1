// Throughput under load: autocannon against the Worker in wrangler dev on 127.0.0.1, 50
// connections for 30 s, a mix of session creation, `select:`, keyword search and prompt fetches
// over 1,000 sessions; and the same load on the no-op route. Afterwards every session's stored
// activations must equal the union of what its requests reported as loaded: nothing lost.
import autocannon from "autocannon";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BENCH_CATALOGS, BENCH_WORK, type BenchCatalog } from "./catalogs.ts";
import { workerToml } from "./latency.ts";
import { DEV_AUTH, wranglerDev } from "./wrangler-dev.ts";

const KEYWORDS = [
  "create issue",
  "take screenshot",
  "list files",
  "search web",
  "read file",
  "navigate browser",
  "query database",
  "send message",
];

export interface ThroughputRow {
  load: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

function row(load: string, r: autocannon.Result): ThroughputRow {
  return {
    load,
    requests: r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export async function throughput(
  catalog: BenchCatalog,
  seconds = 30,
  connections = 50,
  sessions = 1000,
): Promise<{ rows: ThroughputRow[]; lost: number; extra: number; duplicated: number; inFlight: number; checked: number }> {
  const names = (
    JSON.parse(await readFile(join(BENCH_CATALOGS, catalog.file), "utf8")) as { tools: Array<{ name: string; alwaysLoad?: boolean }> }
  ).tools
    .filter((t) => !t.alwaysLoad)
    .map((t) => t.name);
  const dev = await wranglerDev(await workerToml(catalog.file), join(BENCH_WORK, "wrangler.throughput.toml"));
  try {
    const headers = { "content-type": "application/json", ...DEV_AUTH };
    const ids: string[] = [];
    for (let i = 0; i < sessions; i++) {
      const r = await fetch(`${dev.url}/v1/sessions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: "gpt-5", deferral: "on" }),
      });
      ids.push(((await r.json()) as { id: string }).id);
    }
    const loaded = new Map<string, Set<string>>(ids.map((id) => [id, new Set()]));
    let n = 0;
    const run = (opts: autocannon.Options) =>
      new Promise<autocannon.Result>((res, rej) => autocannon(opts, (err, result) => (err ? rej(err) : res(result))));
    const noop = await run({ url: `${dev.url}/healthz`, connections, duration: seconds });
    const mixed = await run({
      url: dev.url,
      connections,
      duration: seconds,
      requests: [
        {
          setupRequest: (req: autocannon.Request, context: Record<string, unknown>) => {
            const i = n++;
            const id = ids[(i * 7919) % ids.length]!;
            context.id = id;
            const op = i % 10;
            if (op === 0)
              return { ...req, method: "POST", path: "/v1/sessions", headers, body: JSON.stringify({ model: "gpt-5", deferral: "on" }) };
            if (op < 5)
              return {
                ...req,
                method: "POST",
                path: `/v1/sessions/${id}/tool-search`,
                headers,
                body: JSON.stringify({ query: `select:${names[(i * 31) % names.length]}` }),
              };
            if (op < 8)
              return {
                ...req,
                method: "POST",
                path: `/v1/sessions/${id}/tool-search`,
                headers,
                body: JSON.stringify({ query: KEYWORDS[i % KEYWORDS.length], limit: 3 }),
              };
            return { ...req, method: "GET", path: `/v1/sessions/${id}/prompt`, headers: DEV_AUTH, body: undefined };
          },
          onResponse: (status: number, body: string, context: Record<string, unknown>) => {
            if (status !== 200 || !body.startsWith('{"result"')) return;
            for (const name of (JSON.parse(body) as { loaded: string[] }).loaded) loaded.get(context.id as string)!.add(name);
          },
        },
      ],
    } as autocannon.Options);
    // requests still in flight when autocannon stops were recorded by the server but their
    // responses were never read: those show up as `extra`, never as `lost`
    let lost = 0;
    let extra = 0;
    let duplicated = 0;
    for (const id of ids) {
      const s = (await (await fetch(`${dev.url}/v1/sessions/${id}`, { headers: DEV_AUTH })).json()) as { activations: string[] };
      const stored = new Set(s.activations);
      const want = loaded.get(id)!;
      lost += [...want].filter((x) => !stored.has(x)).length;
      extra += [...stored].filter((x) => !want.has(x)).length;
      duplicated += s.activations.length - stored.size;
    }
    return {
      rows: [row("GET /healthz (no-op)", noop), row("mixed session API", mixed)],
      lost,
      extra,
      duplicated,
      inFlight: connections,
      checked: ids.length,
    };
  } finally {
    await dev.stop();
  }
}
