// Build time of the demo catalog: each server's connect-and-list time alone (sequentially), then
// the whole `catalog build` (all servers concurrently). Target: total <= 1.5 x the slowest server.
import { join } from "node:path";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig } from "../../cli/lib/config.ts";
import { snapshotLive } from "../../cli/lib/snapshot.ts";
import { tokenCounter } from "../../cli/lib/tokens.ts";
import { ROOT } from "./catalogs.ts";

export interface BuildTimes {
  servers: Array<{ name: string; ms: number; tools: number }>;
  slowest: { name: string; ms: number };
  totalMs: number;
  tools: number;
  bytes: number;
}

export async function buildTimes(): Promise<BuildTimes> {
  const config = await loadConfig(join(ROOT, "toolsearch.config.json"));
  const servers: BuildTimes["servers"] = [];
  for (const spec of config.servers) {
    if (spec.kind === "recorded") continue;
    const t = performance.now();
    const snap = await snapshotLive(spec);
    servers.push({ name: spec.name, ms: performance.now() - t, tools: snap.tools.length });
  }
  await tokenCounter(config.encoding); // the tokenizer is loaded in both cases: not part of the comparison
  const t = performance.now();
  const result = await buildCatalog(config, { concurrency: 16 });
  const totalMs = performance.now() - t;
  const slowest = servers.reduce((a, b) => (b.ms > a.ms ? b : a));
  return {
    servers,
    slowest: { name: slowest.name, ms: slowest.ms },
    totalMs,
    tools: result.catalog.tools.length,
    bytes: result.text.length,
  };
}
