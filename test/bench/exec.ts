// `npm run bench:exec`: edge execution in `wrangler dev` against real MCP servers on 127.0.0.1.
// (1) The latency an edge call adds: the REST call route (Worker -> session Durable Object ->
//     server-everything) against the same tools/call from Node through an SDK Client, one run,
//     as a ratio of medians. (2) Calls per second through one session and across 50 sessions.
// (3) A load run with a D1 outage in the middle (the audit table renamed away, then back):
//     audit rows in D1 against the events the sessions recorded. Writes section 8 of RESULTS.md.
import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { EDGE_TOKEN, serversVar, startEdgeServers } from "../fixtures/edge-servers.ts";
import { startWranglerDev } from "../fixtures/wrangler-dev.ts";
import { prepareWorkerCatalogs } from "../worker/prepare-catalogs.ts";
import { BENCH_WORK, ROOT } from "./catalogs.ts";
import { replaceSection } from "./results.ts";

const KEY = "bench-exec-key-0123456789";
const HEADERS = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const LATENCY_CALLS = 300;
const LOAD_CALLS = 1000;
const OUTAGE_SESSIONS = 50;
const OUTAGE_CALLS_PER_SESSION = 12;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (n: number) => n.toFixed(1);

/** Run `count` tasks with at most `width` at once; the wall time in ms. */
async function pool(count: number, width: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return performance.now() - started;
}

async function main(): Promise<void> {
  await prepareWorkerCatalogs();
  await mkdir(BENCH_WORK, { recursive: true });
  const servers = await startEdgeServers();
  const state = join(BENCH_WORK, `exec-${Date.now()}`);
  const envFile = join(BENCH_WORK, `exec-${Date.now()}.env`);
  await writeFile(envFile, `EDGE_TEST_TOKEN=${EDGE_TOKEN}\n`);
  const dev = await startWranglerDev({
    env: "test",
    persistTo: state,
    envFile,
    vars: { CATALOG: "edge@1.0.0.json", SERVERS: serversVar(servers, 30_000), API_KEYS: JSON.stringify({ [KEY]: "bench" }) },
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${dev.url}${path}`, { method, headers: HEADERS, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as Record<string, unknown> & { events?: Array<{ id: string }>; cursor?: string | null };
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const newSession = async () => (await api("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).id as string;
  const call = (id: string, name: string, args: unknown) => api("POST", `/v1/sessions/${id}/tools/${name}/call`, { arguments: args });
  const lines: string[] = [];
  try {
    // (1) added latency, sequential calls, after a warm-up of each path
    const direct = new Client({ name: "bench", version: "1.0.0" });
    await direct.connect(new StreamableHTTPClientTransport(new URL(servers.everything)));
    const s = await newSession();
    const timings = { direct: [] as number[], edge: [] as number[], noop: [] as number[] };
    for (let i = 0; i < 20; i++) {
      await direct.callTool({ name: "echo", arguments: { message: "warm" } });
      await call(s, "mcp__everything__echo", { message: "warm" });
    }
    for (let i = 0; i < LATENCY_CALLS; i++) {
      let t = performance.now();
      await direct.callTool({ name: "echo", arguments: { message: `m${i}` } });
      timings.direct.push(performance.now() - t);
      t = performance.now();
      await call(s, "mcp__everything__echo", { message: `m${i}` });
      timings.edge.push(performance.now() - t);
      t = performance.now();
      await fetch(`${dev.url}/healthz`).then((r) => r.arrayBuffer());
      timings.noop.push(performance.now() - t);
    }
    await direct.close();
    const [d50, e50, n50] = [pct(timings.direct, 50), pct(timings.edge, 50), pct(timings.noop, 50)];
    lines.push(
      `### Added latency (${LATENCY_CALLS} sequential \`echo\` calls each way, interleaved, one run)`,
      "",
      "| path | p50 ms | p99 ms |",
      "|---|---|---|",
      `| Node -> server-everything (SDK Client, one session) | ${fmt(d50)} | ${fmt(pct(timings.direct, 99))} |`,
      `| client -> Worker call route -> session DO -> server-everything | ${fmt(e50)} | ${fmt(pct(timings.edge, 99))} |`,
      `| client -> Worker \`/healthz\` (wrangler dev's own proxy, no work) | ${fmt(n50)} | ${fmt(pct(timings.noop, 99))} |`,
      "",
      `Edge / direct at p50: **${(e50 / d50).toFixed(2)}x** (${fmt(e50 - d50)} ms added per call, of which ${fmt(n50)} ms is wrangler dev's local proxy).`,
      "",
    );

    // (2) throughput: one session (counter_add on the fixture: one kept-alive upstream session), then 50 sessions
    const one = await newSession();
    const oneMs = await pool(LOAD_CALLS, 10, async () => void (await call(one, "mcp__fixture__counter_add", { n: 1 })));
    const total = (await call(one, "mcp__fixture__counter_get", {})) as { content: Array<{ text: string }> };
    const many = await Promise.all(Array.from({ length: 50 }, newSession));
    const manyMs = await pool(LOAD_CALLS, 50, async (i) => void (await call(many[i % 50]!, "mcp__fixture__counter_add", { n: 1 })));
    lines.push(
      `### Calls per second (${LOAD_CALLS} calls of \`counter_add\` on the fixture server)`,
      "",
      "| sessions | concurrent requests | calls/s | wall s |",
      "|---|---|---|---|",
      `| 1 | 10 | ${fmt(LOAD_CALLS / (oneMs / 1000))} | ${fmt(oneMs / 1000)} |`,
      `| 50 | 50 | ${fmt(LOAD_CALLS / (manyMs / 1000))} | ${fmt(manyMs / 1000)} |`,
      "",
      `The one session's counter after its run: \`${total.content[0]!.text}\` (every call reached the same upstream session).`,
      "",
    );

    // (3) a load run with D1 down in the middle
    const d1 = (sql: string) =>
      promisify(execFile)(
        process.execPath,
        [
          join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
          "d1",
          "execute",
          "AUDIT",
          "--local",
          "--env",
          "test",
          "--persist-to",
          state,
          "--command",
          sql,
        ],
        { cwd: ROOT, env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" } },
      );
    const sessions = await Promise.all(Array.from({ length: OUTAGE_SESSIONS }, newSession));
    const count = OUTAGE_SESSIONS * OUTAGE_CALLS_PER_SESSION;
    let down = 0;
    let failed = 0;
    const run = pool(count, 20, async (i) => {
      const id = sessions[i % OUTAGE_SESSIONS]!;
      try {
        if (i % 4 === 0) await api("POST", `/v1/sessions/${id}/tool-search`, { query: "counter" });
        await call(id, i % 3 ? "mcp__fixture__counter_add" : "mcp__everything__echo", i % 3 ? { n: 1 } : { message: `e${i}` });
      } catch {
        failed++;
      }
    });
    // the outage starts once the run is under way and ends while it goes on
    await new Promise((r) => setTimeout(r, 1500));
    await d1("ALTER TABLE audit_events RENAME TO audit_events_down");
    const outageStarted = performance.now();
    const during = await pool(200, 10, async (i) => {
      down += 1;
      await call(sessions[i % OUTAGE_SESSIONS]!, "mcp__fixture__counter_add", { n: 1 });
    });
    await d1("ALTER TABLE audit_events_down RENAME TO audit_events");
    const outageMs = performance.now() - outageStarted;
    await run;
    const allEvents = async (path: string) => {
      const ids: string[] = [];
      let cursor: string | null | undefined = null;
      do {
        const page = await api("GET", `${path}${path.includes("?") ? "&" : "?"}limit=500${cursor ? `&cursor=${cursor}` : ""}`);
        ids.push(...page.events!.map((e) => e.id));
        cursor = page.cursor;
      } while (cursor);
      return ids;
    };
    const recorded = (await Promise.all(sessions.map((id) => allEvents(`/v1/sessions/${id}/audit`)))).flat();
    const deadline = Date.now() + 180_000;
    let delivered: string[] = [];
    const waitStarted = performance.now();
    do {
      delivered = (await Promise.all(sessions.map((id) => allEvents(`/v1/audit?session=${id}`)))).flat();
      if (delivered.length >= recorded.length) break;
      await new Promise((r) => setTimeout(r, 1000));
    } while (Date.now() < deadline);
    const same = new Set(delivered).size === delivered.length && recorded.every((id) => delivered.includes(id));
    lines.push(
      `### Audit delivery with D1 down in the middle of a load run`,
      "",
      `${OUTAGE_SESSIONS} sessions, ${count} calls plus a toolSearch every 4th request (20 at a time), and ${down} more calls while the D1 table was renamed away for ${fmt(outageMs / 1000)} s (${fmt(during / 1000)} s of them under load). ${failed} requests failed.`,
      "",
      "| events the sessions recorded | rows in D1 afterwards | duplicates | every event in D1 | time from the end of the run to full delivery |",
      "|---|---|---|---|---|",
      `| ${recorded.length} | ${delivered.length} | ${delivered.length - new Set(delivered).size} | ${same ? "yes" : "**no**"} | ${fmt((performance.now() - waitStarted) / 1000)} s |`,
      "",
      "Delivery retries back off from 1 s to 60 s, so rows written during a long outage reach D1 up to a minute after it ends.",
    );
  } finally {
    await dev.stop();
    await servers.stop();
  }
  const body = [
    "`npm run bench:exec` (test/bench/exec.ts): `wrangler dev` (workerd, local Durable Objects and D1) on this 2-core machine, shared with other work: read rows of one table against each other.",
    "server-everything (Streamable HTTP) and the fixture server (test/fixtures/mcp-http-server.ts) run as Node processes on 127.0.0.1.",
    "",
    ...lines,
  ].join("\n");
  await replaceSection("## 8. Edge execution", body);
  console.log(body);
}

await main();
