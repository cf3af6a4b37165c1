// `npm run bench -- floor`: the agent surfaces against the floor (issue 38). An instant upstream
// (floor/upstream.ts); the floor Worker (floor/worker.ts: read the JSON, one DO call writing one
// row, replace the tools, forward, pass the answer through; Responses answered as Responses,
// tools echoed) and the project's Worker, both in
// wrangler dev. Every round sends the same request through every path, in a fresh random order,
// with a pause after each call, for both request shapes (floor/requests.ts), JSON and SSE; each
// call is one Node fetch, the body stringified before the timer starts, the timer stopped at the
// last byte, the answer's text checked. Figures: the paired p50 ratio over the floor (median over
// rounds of the ratio of two calls in the same round), the ratio of the p99s, and the paired
// difference. Then the cost of a tool-set miss for 191 tools (floor/miss.ts, one process each: the
// first request of an isolate) and the request path's pieces in Node (floor/pieces.ts). BENCH_ROUNDS (default 60) after BENCH_WARMUP (10).
import { execFileSync } from "node:child_process";
import { readFile, rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { DEV_API_KEY, startWranglerDev } from "../fixtures/wrangler-dev.ts";
import { BENCH_WORK, ROOT } from "./catalogs.ts";
import { ANSWER, startInstantUpstream } from "./floor/upstream.ts";
import { answerText, clientTools, requestBody, type Mode, type Protocol, type Shape } from "./floor/requests.ts";
import { p50, pinnedDemo, table } from "./results.ts";

interface Target {
  name: string;
  protocol: Protocol;
  floor: boolean;
  path: string;
  headers?: Record<string, string>;
}
const TARGETS: Target[] = [
  { name: "floor chat", protocol: "chat", floor: true, path: "/v1/chat/completions" },
  { name: "floor messages", protocol: "messages", floor: true, path: "/v1/messages" },
  { name: "floor responses", protocol: "responses", floor: true, path: "/v1/responses" },
  { name: "/v1/chat/completions", protocol: "chat", floor: false, path: "/v1/chat/completions" },
  { name: "/v1/responses", protocol: "responses", floor: false, path: "/v1/responses" },
  {
    name: "/v1/messages, chat upstream",
    protocol: "messages",
    floor: false,
    path: "/v1/messages",
    headers: { "x-toolsearch-upstream": "chat" },
  },
  {
    name: "/v1/messages, Messages upstream",
    protocol: "messages",
    floor: false,
    path: "/v1/messages",
    headers: { "x-toolsearch-upstream": "anthropic" },
  },
];
/** the floor path each surface is compared with: the protocol its upstream speaks */
const floorOf = (t: Target) =>
  t.protocol === "responses" ? "floor responses" : t.headers?.["x-toolsearch-upstream"] === "anthropic" ? "floor messages" : "floor chat";
const GROUPS: Array<[Shape, Mode]> = [
  ["catalog", "json"],
  ["catalog", "sse"],
  ["tools", "json"],
  ["tools", "sse"],
];
const groupName = ([shape, mode]: [Shape, Mode]) => `${shape === "tools" ? "191 client tools" : "no client tools"}, ${mode.toUpperCase()}`;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function call(url: string, headers: Record<string, string>, body: string): Promise<{ ms: number; text: string }> {
  const t = performance.now();
  const res = await fetch(url, { method: "POST", headers, body });
  const text = await res.text();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}: ${text.slice(0, 400)}`);
  return { ms, text };
}

type Miss = { cold: number; warm: number; coldCpu: number; warmCpu: number };
/** Tool-set misses for 191 tools, each the first of a fresh Node process: p50 of each figure. */
function misses(catalogPath: string, n = 7): Miss {
  const runs = Array.from({ length: n }, () => {
    const out = execFileSync(process.execPath, [join(ROOT, "test/bench/floor/miss.ts"), catalogPath], { encoding: "utf8" });
    return JSON.parse(out.trim().split("\n").pop()!) as Miss;
  });
  const of = (k: keyof Miss) => p50(runs.map((r) => r[k]));
  return { cold: of("cold"), warm: of("warm"), coldCpu: of("coldCpu"), warmCpu: of("warmCpu") };
}

export const FLOOR_HEADING = "## 14. Agent requests against the floor";
export const FLOOR_PARTS = ["### Before", "### After"];
export const FLOOR_INTRO = `\`npm run bench -- floor\` (test/bench/floor.ts; BENCH_ROUNDS, default 60, after BENCH_WARMUP, default 10; BENCH_PART names the part \`--write\` replaces, Before or After). An instant fake upstream; the floor Worker (test/bench/floor/worker.ts: \`request.json()\`, one Durable Object call writing one row, the tools replaced by toolSearch and 2 of the client's, forwarded, the answer passed through) and the project, both in wrangler dev. Each round sends every path's request once, all ${GROUPS.length * TARGETS.length} in a fresh random order, 15 ms apart. A cell is the paired p50 ratio over the floor (median over rounds of the same-round ratio) / the ratio of the p99s (the paired p50 difference). Target: 1.1x. The Responses surface runs over the Chat Completions upstream and is compared with floor responses (test/bench/floor/responses.ts: the input as chat messages, the chat answer as one Responses object echoing the request's tools, as OpenAI's does); the Messages upstream with floor messages. Only ratios within one run count: the machine is shared.`;
const commit = () => execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();

export async function floorSection(
  rounds = Number(process.env.BENCH_ROUNDS ?? 60),
  warmup = Number(process.env.BENCH_WARMUP ?? 10),
): Promise<{ heading: string; intro: string; part: string }> {
  const catalogPath = join(ROOT, "catalogs", await pinnedDemo());
  const tools = clientTools((JSON.parse(await readFile(catalogPath, "utf8")) as { tools: Parameters<typeof clientTools>[0] }).tools);
  const upstream = await startInstantUpstream();
  const persist = join(BENCH_WORK, "floor-state");
  await rm(persist, { recursive: true, force: true });
  const keys = { OPENAI_API_KEY: "bench", ANTHROPIC_API_KEY: "bench" };
  const floor = await startWranglerDev({
    config: join(ROOT, "test/bench/floor/wrangler.toml"),
    migrate: false,
    persistTo: persist,
    vars: { UPSTREAM: upstream.url },
  });
  const project = await startWranglerDev({
    persistTo: persist,
    vars: { ...keys, OPENAI_BASE_URL: `${upstream.url}/v1`, ANTHROPIC_BASE_URL: upstream.url },
  });
  const ms = new Map<string, number[]>();
  const sizes = new Map<string, number>(); // the answer's length, last round
  const loadBefore = loadavg()[0]!;
  const started = Date.now();
  try {
    const base = { "content-type": "application/json", authorization: `Bearer ${DEV_API_KEY}`, "anthropic-version": "2023-06-01" };
    for (let round = 0; round < warmup + rounds; round++) {
      const order = GROUPS.flatMap((g) => TARGETS.map((t) => [g, t] as const));
      for (let j = order.length - 1; j > 0; j--) {
        const k = Math.floor(Math.random() * (j + 1));
        [order[j], order[k]] = [order[k]!, order[j]!];
      }
      for (const [g, t] of order) {
        const body = requestBody(tools, t.protocol, g[0], g[1], round);
        const r = await call(`${t.floor ? floor.url : project.url}${t.path}`, { ...base, ...t.headers }, body);
        const got = answerText(t.protocol, g[1], r.text);
        if (got !== ANSWER) throw new Error(`${t.name}, ${groupName(g)}: answer ${JSON.stringify(got)} in ${r.text.slice(0, 300)}`);
        const key = `${groupName(g)} ${t.name}`;
        if (round >= warmup) ms.set(key, [...(ms.get(key) ?? []), r.ms]);
        sizes.set(key, r.text.length);
        await sleep(15);
      }
      if (round % 20 === 0) process.stderr.write(`floor bench: round ${round}/${warmup + rounds}\n`);
    }
  } finally {
    await Promise.all([floor.stop(), project.stop(), upstream.stop()]);
  }
  const loadAfter = loadavg()[0]!;
  const seconds = Math.round((Date.now() - started) / 1000);
  const miss = misses(catalogPath);
  const pieceRuns = execFileSync(process.execPath, [join(ROOT, "test/bench/floor/pieces.ts"), catalogPath], { encoding: "utf8" });
  const pieces = JSON.parse(pieceRuns.trim().split("\n").pop()!) as Record<string, Record<string, number>>;
  const ms3 = (n: number | undefined) => (n ?? NaN).toFixed(2);

  const cell = (g: [Shape, Mode], t: Target) => {
    const xs = ms.get(`${groupName(g)} ${t.name}`)!;
    const fl = ms.get(`${groupName(g)} ${floorOf(t)}`)!;
    const ratio = pct(
      xs.map((x, i) => x / fl[i]!),
      50,
    );
    const diff = pct(
      xs.map((x, i) => x - fl[i]!),
      50,
    );
    return `${ratio.toFixed(2)}x / ${(pct(xs, 99) / pct(fl, 99)).toFixed(2)}x (${diff >= 0 ? "+" : ""}${diff.toFixed(1)} ms)`;
  };
  const floorCell = (g: [Shape, Mode], name: string) => {
    const xs = ms.get(`${groupName(g)} ${name}`)!;
    return `${pct(xs, 50).toFixed(1)} / ${pct(xs, 99).toFixed(1)} ms`;
  };
  const part = process.env.BENCH_PART ?? "After";
  const body = [
    `### ${part}`,
    "",
    `${rounds} rounds after ${warmup}, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit()}.`,
    "",
    `Machine: ${cpus().length} x ${cpus()[0]?.model.trim()}, Node ${process.version}; load average (1 min) ${loadBefore.toFixed(1)} at the start, ${loadAfter.toFixed(1)} at the end (${seconds} s, shared with other jobs).`,
    "",
    table(
      ["path", ...GROUPS.map(groupName)],
      [
        ["floor chat (p50 / p99)", ...GROUPS.map((g) => floorCell(g, "floor chat"))],
        ["floor messages (p50 / p99)", ...GROUPS.map((g) => floorCell(g, "floor messages"))],
        ["floor responses (p50 / p99)", ...GROUPS.map((g) => floorCell(g, "floor responses"))],
        ...TARGETS.filter((t) => !t.floor).map((t) => [`\`${t.name}\``, ...GROUPS.map((g) => cell(g, t))]),
      ],
    ),
    "",
    `Answer sizes with 191 client tools, JSON / SSE (characters): ${TARGETS.map((t) => `${t.name} ${sizes.get(`${groupName(["tools", "json"])} ${t.name}`)} / ${sizes.get(`${groupName(["tools", "sse"])} ${t.name}`)}`).join("; ")}. A Responses answer echoes the request's tools, as OpenAI's does (its stream: in the created, in_progress and completed events).`,
    "",
    "The request path's pieces with 191 client tools, in Node with the project's modules (test/bench/floor/pieces.ts, medians of 200 after 20, ms; the same machine, right after the run):",
    "",
    table(
      [
        "protocol",
        "JSON.parse of the body",
        "wire check",
        "JSON.stringify of the tools (the old cache key)",
        "raw tools member (the key now)",
        "body read, its tools known: found first (now) / after a whole scan",
      ],
      ["chat", "responses", "messages"].map((p) => [
        p,
        ms3(pieces[p]?.parse),
        ms3(pieces[p]?.check),
        ms3(pieces[p]?.stringifyTools),
        ms3(pieces[p]?.rawMember),
        `${ms3(pieces[p]?.knownFound)} / ${ms3(pieces[p]?.knownScanned)}`,
      ]),
    ),
    "",
    `One upstream call (stream, instant upstream): the OpenAI SDK with a new client ${ms3(pieces.upstream?.sdkNewClient)} ms, with the client kept ${ms3(pieces.upstream?.sdkKeptClient)} ms, the Worker's own callUpstream (what it does now: one fetch, chat/sse.ts) ${ms3(pieces.upstream?.worker)} ms, a bare fetch reading the same SSE ${ms3(pieces.upstream?.plainFetch)} ms.`,
    "",
    `A tool-set miss for the 191 tools (\`clientToolSet\`, Node, the first call of a fresh process as in a new isolate, p50 of 7 processes): ${miss.cold.toFixed(1)} ms (CPU time ${miss.coldCpu.toFixed(1)} ms); a second, warm miss in the same process: ${miss.warm.toFixed(1)} ms (CPU ${miss.warmCpu.toFixed(1)} ms). Target: 5 ms.`,
    "",
  ].join("\n");
  return { heading: FLOOR_HEADING, intro: FLOOR_INTRO, part: body };
}
