// `npm run bench:exec [-- --rounds N] [--write]`: what an edge call costs, in `wrangler dev`, against
// real MCP servers on 127.0.0.1. One interleaved run: every round calls server-everything's echo
// from Node directly (SDK Client), through the baseline Worker (test/bench/baseline/: a Durable
// Object with one SDK client, one SQLite row per call; again with that row written ahead of the
// call, as the project's audit is), through the project's REST call route and
// through its /mcp tools/call, and pings the baseline with and without the assets router in front.
// Then the sub-costs inside workerd (SDK server per request, SHA-256 of the key) and calls per
// second. `-- faults` runs the fault scenarios under load instead (exec-faults.ts), `-- oauth` what a
// stored per-user token adds to a call (exec-oauth.ts). `--write`
// replaces this mode's part of RESULTS.md section 8.
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serversVar, startEdgeServers } from "../fixtures/edge-servers.ts";
import { startWranglerDev } from "../fixtures/wrangler-dev.ts";
import { prepareWorkerCatalogs } from "../worker/prepare-catalogs.ts";
import { BENCH_WORK, ROOT } from "./catalogs.ts";
import { Api, fmt, HEADERS, pct, pool, startProject } from "./exec-rig.ts";
import { runFaults } from "./exec-faults.ts";
import { runOAuth } from "./exec-oauth.ts";
import { machineLine, pinnedDemo, replacePart } from "./results.ts";

const { values, positionals } = parseArgs({
  options: { rounds: { type: "string", default: "300" }, write: { type: "boolean", default: false } },
  allowPositionals: true,
});
const ROUNDS = Number(values.rounds);
const WARMUP = 20;
const LOAD_CALLS = 1000;
// ops per /micro request: enough that their time stands well above the request's own noise
const MICRO = { server: 5000, digest: 20000 };
// this machine's benches keep to an assigned port range
const PORTS = { project: 19000, baseline: 19001, assets: 19002, everything: 19010, fixture: 19011, legacy: 19012 };
export const SECTION = "## 8. Edge execution";
export const INTRO = [
  "`npm run bench:exec` (test/bench/exec.ts), `npm run bench:exec -- faults` (test/bench/exec-faults.ts) and `npm run bench:exec -- oauth` (test/bench/exec-oauth.ts), each with `--write`: `wrangler dev` (workerd, local Durable Objects and D1) on a 2-core machine shared with other work, so read rows of one table against each other.",
  "server-everything (Streamable HTTP) and the fixture server (test/fixtures/mcp-http-server.ts) run as Node processes on 127.0.0.1.",
].join("\n");
export const PARTS = ["### Latency", "### Faults", "### Per-user tokens"];

async function timed(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function latency(): Promise<string> {
  await prepareWorkerCatalogs();
  await mkdir(BENCH_WORK, { recursive: true });
  const servers = await startEdgeServers(PORTS);
  const stamp = Date.now();
  const state = join(BENCH_WORK, `exec-${stamp}`);
  await mkdir(state, { recursive: true });
  const baselineDev = (config: string, port: number) =>
    startWranglerDev({
      config: join(ROOT, "test/bench/baseline", config),
      port,
      migrate: false,
      persistTo: join(BENCH_WORK, `baseline-${stamp}-${port}`),
      vars: { UPSTREAM: servers.everything },
    });
  const [dev, baseline, assets] = await Promise.all([
    startProject({ state, port: PORTS.project, servers: serversVar(servers, 30_000) }),
    baselineDev("wrangler.toml", PORTS.baseline),
    baselineDev("wrangler-assets.toml", PORTS.assets),
  ]);
  const api = new Api(dev.url);
  const mcpClient = async (url: string, headers: Record<string, string> = {}) => {
    const c = new Client({ name: "bench-exec", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return c;
  };
  try {
    const direct = await mcpClient(servers.everything);
    const gateway = await mcpClient(`${dev.url}/mcp?model=gpt-4o`, { authorization: HEADERS.authorization });
    await gateway.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    const s = await api.session();
    const get = (url: string) => fetch(url).then((r) => r.arrayBuffer());
    const paths: Record<string, (i: number) => Promise<unknown>> = {
      direct: (i) => direct.callTool({ name: "echo", arguments: { message: `d${i}` } }),
      baseline: (i) =>
        fetch(`${baseline.url}/call`, { method: "POST", body: JSON.stringify({ name: "echo", arguments: { message: `b${i}` } }) }).then(
          (r) => r.json(),
        ),
      ahead: (i) =>
        fetch(`${baseline.url}/call?ahead=1`, {
          method: "POST",
          body: JSON.stringify({ name: "echo", arguments: { message: `a${i}` } }),
        }).then((r) => r.json()),
      rest: async (i) => {
        const r = await api.call(s, "mcp__everything__echo", { message: `r${i}` });
        if (r.status !== 200) throw new Error(`REST call: ${r.status} ${JSON.stringify(r.body)}`);
      },
      mcp: (i) => gateway.callTool({ name: "mcp__everything__echo", arguments: { message: `m${i}` } }),
      healthz: () => get(`${dev.url}/healthz`),
    };
    const names = Object.keys(paths);
    const ms = Object.fromEntries(names.map((n) => [n, [] as number[]]));
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      // each round starts at a different path, so no path always follows the same one
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length]!;
        const t = await timed(() => paths[name]!(i));
        if (i >= WARMUP) ms[name]!.push(t);
      }
    }
    await direct.close();
    await gateway.close();

    // the assets router: the same no-op request on the baseline with and without it, in pairs (alternating which goes first)
    const ping = { plain: [] as number[], assets: [] as number[] };
    for (let i = 0; i < 3 * ROUNDS; i++) {
      const pair = [() => get(`${baseline.url}/ping`), () => get(`${assets.url}/ping`)] as const;
      const first = i % 2;
      const a = await timed(pair[first]!);
      const b = await timed(pair[1 - first]!);
      ping.plain.push(first ? b : a);
      ping.assets.push(first ? a : b);
    }
    const diffs = ping.assets.map((x, i) => x - ping.plain[i]!);

    // sub-costs inside workerd: n ops minus the same request doing none, medians of interleaved repeats
    const micro = async (op: string, n: number) => {
      const zero: number[] = [];
      const many: number[] = [];
      for (let r = 0; r < 15; r++) {
        zero.push(await timed(() => get(`${baseline.url}/micro?op=${op}&n=0`)));
        many.push(await timed(() => get(`${baseline.url}/micro?op=${op}&n=${n}`)));
      }
      return (pct(many, 50) - pct(zero, 50)) / n;
    };
    const serverMs = await micro("server", MICRO.server);
    const digestMs = await micro("digest", MICRO.digest);

    // calls per second: one session (one kept-alive upstream session), then 50 sessions
    const one = await api.session();
    const oneMs = await pool(LOAD_CALLS, 10, async () => void (await api.call(one, "mcp__fixture__counter_add", { n: 1 })));
    const total = (await api.call(one, "mcp__fixture__counter_get", {})).body.content[0].text;
    const many = await Promise.all(Array.from({ length: 50 }, api.session));
    const manyMs = await pool(LOAD_CALLS, 50, async (i) => void (await api.call(many[i % 50]!, "mcp__fixture__counter_add", { n: 1 })));

    const demoMiB = (await stat(join(ROOT, "catalogs", await pinnedDemo()))).size / 1048576;
    const p50 = (n: string) => pct(ms[n]!, 50);
    const ratio = (n: string) => `${(p50(n) / p50("baseline")).toFixed(2)}x`;
    // the same round's two calls, made moments apart, share the machine's load at that moment
    const paired = (n: string) =>
      `${pct(
        ms[n]!.map((x, i) => x / ms.baseline![i]!),
        50,
      ).toFixed(2)}x`;
    const row = (what: string, n: string) => {
      const vsBase =
        n === "rest" || n === "mcp" || n === "ahead" ? `${ratio(n)} (+${fmt(p50(n) - p50("baseline"))} ms) | ${paired(n)}` : " | ";
      return `| ${what} | ${fmt(p50(n))} | ${fmt(pct(ms[n]!, 99))} | ${vsBase} |`;
    };
    return [
      `### Latency of an edge call against a baseline (${ROUNDS} rounds after ${WARMUP} of warm-up, interleaved, one run)`,
      "",
      machineLine(),
      "",
      "Each round makes one call of server-everything's `echo` on every path below, in turn (starting at a different path each round), and one `GET /healthz`.",
      "",
      "| path | p50 ms | p99 ms | p50 / baseline p50 | median of the rounds' ratios to the baseline |",
      "|---|---|---|---|---|",
      row("Node -> server-everything directly (SDK Client, one session)", "direct"),
      row("baseline: Worker -> Durable Object (one SDK client, one SQLite row per call) -> server-everything", "baseline"),
      row("baseline with its row written ahead of the call and completed after it (as the project's audit)", "ahead"),
      row("project REST: `POST /v1/sessions/:id/tools/:name/call`", "rest"),
      row("project `/mcp` `tools/call` of the tool by name (SDK Client)", "mcp"),
      row("project `GET /healthz` (no upstream call, no key, catalog cached)", "healthz"),
      "",
      `Targets (issue 22): REST at most 1.15x the baseline, \`/mcp\` at most 1.2x. Measured: REST **${ratio("rest")}** (paired ${paired("rest")}), \`/mcp\` **${ratio("mcp")}** (paired ${paired("mcp")}).`,
      "",
      "#### Sub-costs",
      "",
      "| what | ms per request | measured as |",
      "|---|---|---|",
      `| the assets router in front of the Worker (\`run_worker_first = true\`) | ${fmt(pct(diffs, 50), 2)} | median of ${diffs.length} paired differences: baseline \`GET /ping\` behind the router (p50 ${fmt(pct(ping.assets, 50), 2)} ms) minus without it (p50 ${fmt(pct(ping.plain, 50), 2)} ms) |`,
      `| building the SDK server and its stateless transport, connected (as /mcp does per request) | ${fmt(serverMs, 3)} | baseline \`/micro?op=server&n=${MICRO.server}\` minus \`n=0\`, /${MICRO.server} (medians of 15) |`,
      `| SHA-256 of an API key (crypto.subtle.digest) | ${fmt(digestMs, 4)} | baseline \`/micro?op=digest&n=${MICRO.digest}\` minus \`n=0\`, /${MICRO.digest} (medians of 15) |`,
      "",
      `Dropping the router takes more than configuration: with \`[assets]\` and no \`run_worker_first\`, every catalog file would be served publicly. Without \`[assets]\`, a catalog would reach the Worker as a bundled Data module: the pinned demo catalog is ${fmt(demoMiB, 2)} MiB, and the 10,000-tool catalog of section 2 fits as well, against the 64 MiB limit on a Worker's uncompressed size. The project has since bundled its catalogs and page (docs/deployment.md, "Catalogs in the bundle"): the baseline keeps both configs to time the router itself.`,
      "",
      `#### Calls per second (${LOAD_CALLS} calls of \`counter_add\` on the fixture server, REST)`,
      "",
      "| sessions | concurrent requests | calls/s | wall s |",
      "|---|---|---|---|",
      `| 1 | 10 | ${fmt(LOAD_CALLS / (oneMs / 1000))} | ${fmt(oneMs / 1000)} |`,
      `| 50 | 50 | ${fmt(LOAD_CALLS / (manyMs / 1000))} | ${fmt(manyMs / 1000)} |`,
      "",
      `The one session's counter after its run: \`${total}\` (every call reached the same upstream session).`,
    ].join("\n");
  } finally {
    await Promise.all([dev.stop(), baseline.stop(), assets.stop()]);
    await servers.stop();
  }
}

const started = performance.now();
const mode = positionals[0];
const part = mode === "faults" ? await runFaults() : mode === "oauth" ? await runOAuth(ROUNDS) : await latency();
console.log(part);
console.log(`\n(${((performance.now() - started) / 1000).toFixed(0)} s)`);
if (values.write) await replacePart(SECTION, INTRO, PARTS, part);
