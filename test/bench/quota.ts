// `npm run bench -- quota`: what the quota checks (worker/session/quota-client.ts) add to a request,
// in workerd (wrangler dev). Paired, in one run, on one Worker: two API keys whose tenants differ
// only in QUOTAS: `dev` has the defaults (each request takes a unit from its key's quota object,
// each new session one more), `free` has every limit at 0 (no counter is asked). Each pair sends
// the same request with both keys, in a random order; "added" is the p50 of the per-pair
// difference. GET /v1/catalog carries the request check; POST /v1/sessions both checks.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { BENCH_WORK, benchCatalogs } from "./catalogs.ts";
import { workerToml } from "./latency.ts";
import { p50, tableSection } from "./results.ts";
import { wranglerDev } from "./wrangler-dev.ts";

async function timed(send: () => Promise<Response>): Promise<number> {
  const t = performance.now();
  const r = await send();
  await r.arrayBuffer();
  if (!r.ok) throw new Error(`status ${r.status}`);
  return performance.now() - t;
}

async function paired(pairs: number, send: (auth: string) => Promise<Response>, keys: { counted: string; free: string }) {
  const counted: number[] = [];
  const free: number[] = [];
  const added: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const first = Math.random() < 0.5;
    const a = first ? await timed(() => send(keys.counted)) : 0;
    const b = await timed(() => send(keys.free));
    const c = first ? a : await timed(() => send(keys.counted));
    counted.push(c);
    free.push(b);
    added.push(c - b);
  }
  return { counted: p50(counted), free: p50(free), added: p50(added) };
}

export async function quotaSection(): Promise<string> {
  const demo = (await benchCatalogs()).find((c) => c.file.startsWith("demo@"))!;
  const keys = { counted: `bench-counted-${randomBytes(8).toString("hex")}`, free: `bench-free-${randomBytes(8).toString("hex")}` };
  const toml = `${await workerToml(demo.file)}\n[vars.QUOTAS]\ntenants = { free = { requestsPerKeyPerMinute = 0, sessionsPerKeyPerHour = 0 } }\n`;
  const dev = await wranglerDev(toml, join(BENCH_WORK, "wrangler.quota.toml"), {
    API_KEYS: JSON.stringify({ [keys.counted]: "dev", [keys.free]: "free" }),
  });
  try {
    const get = (key: string) => fetch(`${dev.url}/v1/catalog`, { headers: { authorization: `Bearer ${key}` } });
    const create = (key: string) =>
      fetch(`${dev.url}/v1/sessions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-5", deferral: "on" }),
      });
    await paired(50, get, keys); // warm up both keys' paths
    const rows = [
      ["GET /v1/catalog (request check)", 1000, await paired(1000, get, keys)],
      ["POST /v1/sessions (request and session checks)", 300, await paired(300, create, keys)],
    ] as const;
    return tableSection(
      "## 11. Quota checks",
      `What the quota checks add to a request in workerd (wrangler dev, demo catalog): pairs of the same request with two keys whose tenants differ only in QUOTAS, in a random order. "Counted": the defaults (the isolate leases units from the key's quota object 100 at a time, 1% of the limit: one call per 100 requests or sessions); "none": every limit 0 (no call). p50 of each, and of the per-pair difference, ms. Target: added <= 0.5 ms. The same bench with one call per request and per session (commit 9c4e9a6, before leases) gave 2.482 and 3.345 ms added.`,
      ["request", "pairs", "counted (ms)", "none (ms)", "added (ms)"],
      rows.map(([label, n, m]) => [label, n, m.counted.toFixed(3), m.free.toFixed(3), m.added.toFixed(3)]),
    );
  } finally {
    await dev.stop();
  }
}

if (import.meta.main) console.log(await quotaSection());
