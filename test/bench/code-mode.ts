// `npm run bench -- code`: code mode against one tool call per model round (RESULTS.md section 13).
// A scripted task: read N issues of an issue tracker (a real MCP server, tracker-server.ts, each
// answer about 2 KB of JSON) and report how many are bugs and three titles. The one-call-per-round
// agent does toolSearch, then N callTool rounds; the code-mode agent does toolSearch, then one
// runCode. Both run through `wrangler dev` over REST, as a client loop would; the model's side is
// the conversation each would send (the session's prompt and tools, each tool call and result),
// counted with o200k_base the way OpenAI bills a request (tools, then every message), summed over
// its requests. Wall time is the Worker's side only (no model is reachable offline): the requests
// of each path, back to back; a second table adds an assumed per-request model latency
// (ASSUMED_MODEL_MS), labelled as an assumption. Also: a run's start (`return 1`), the cost of a call inside a run
// against one callTool, and declarations against JSON schemas for the demo catalog.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildCatalog } from "../../cli/lib/build.ts";
import { parseConfig } from "../../cli/lib/config.ts";
import { tokenCounter } from "../../cli/lib/tokens.ts";
import { toolsDeclaration } from "../../worker/core/declarations.ts";
import { RUN_CODE_TOOL } from "../../worker/core/run-code-tool.ts";
import { TRACKER_TOOLS } from "../fixtures/tracker-tools.ts";
import { freePort, startWranglerDev } from "../fixtures/wrangler-dev.ts";
import { TEST_CATALOGS } from "../worker/prepare-catalogs.ts";
import { writeWorkerFiles } from "../../cli/lib/worker-files.ts";
import { ROOT } from "./catalogs.ts";
import { Api, fmt, KEY, pct, type Json } from "./exec-rig.ts";
import { machineLine, p50, table, tableSection } from "./results.ts";

const REPO = "acme/api";
const ROUNDS = 3;
/** An assumption, not a measurement: what each model request would add if a model answered in this
 * time (no model is reachable offline). Shown only beside the measured 0-latency figures. */
const ASSUMED_MODEL_MS = 500;

const program = (n: number) => `const ids = await tools.tracker.list_issues({ repo: "${REPO}", limit: ${n} });
const issues = await Promise.all(ids.length ? JSON.parse(ids).map((id) => tools.tracker.get_issue({ repo: "${REPO}", id }).then(JSON.parse)) : []);
const bugs = issues.filter((i) => i.labels.includes("bug"));
return { issues: issues.length, bugs: bugs.length, newest: issues.slice(-3).map((i) => i.title) };`;

async function startTracker(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [join(ROOT, "test/fixtures/tracker-server.ts"), "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((ok, fail) => {
    child.stdout!.on("data", (d: Buffer) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) ok(Number(m[1]));
    });
    child.once("exit", () => fail(new Error("the tracker server exited")));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}

type Msg = Record<string, unknown>;
const callMsg = (id: string, name: string, args: unknown): Msg => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const resultMsg = (id: string, content: string): Msg => ({ role: "tool", tool_call_id: id, content });

export async function codeModeSection(): Promise<string> {
  const count = await tokenCounter("o200k_base");
  const tracker = await startTracker();
  await writeFile(join(TEST_CATALOGS, ".tracker.tools.json"), JSON.stringify({ tools: TRACKER_TOOLS }));
  const built = await buildCatalog(
    parseConfig({ name: "tracker", version: "1.0.0", mcpServers: { tracker: { tools: ".tracker.tools.json" } } }, TEST_CATALOGS),
  );
  await rm(join(TEST_CATALOGS, ".tracker.tools.json"));
  await writeFile(join(TEST_CATALOGS, "tracker@1.0.0.json"), built.text);
  // the test Worker serves the catalogs bundled into its files module: bundle tracker too
  await writeWorkerFiles(TEST_CATALOGS, join(TEST_CATALOGS, "files.ts"));
  const state = await mkdtemp(join(tmpdir(), "toolsearch-bench-code-"));
  const dev = await startWranglerDev({
    env: "test",
    persistTo: state,
    port: await freePort(),
    vars: {
      CATALOG: "tracker@1.0.0.json",
      SERVERS: JSON.stringify({ tracker: { url: tracker.url } }),
      OPENAI_API_KEY: "unused",
      API_KEYS: JSON.stringify({ [KEY]: "bench" }),
      CODE_WALL_MS: "60000",
    },
  });
  const api = new Api(dev.url);
  const tokensOf = (tools: unknown[], messages: Msg[]) =>
    count(JSON.stringify(tools)) + messages.reduce((s, m) => s + count(JSON.stringify(m)), 0);
  const user: Msg = {
    role: "user",
    content: `Read the open issues of ${REPO} and tell me how many are bugs, with the three newest titles.`,
  };
  try {
    const rows: Array<Array<string | number>> = [];
    const assumed: Array<Array<string | number>> = [];
    const at20: Record<string, number> = {};
    for (const n of [5, 20, 100]) {
      const walls = { rounds: [] as number[], code: [] as number[] };
      let tokens = { rounds: 0, code: 0 };
      for (let r = 0; r < ROUNDS + 1; r++) {
        // one call per round: toolSearch, then list_issues and N get_issue calls through callTool
        const s = await api.ok("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", activation: "proxy" });
        const prompt = await api.ok("GET", `/v1/sessions/${s.id}/prompt`);
        const convo: Msg[] = [{ role: "system", content: prompt.system }, user];
        const sent: number[] = [tokensOf(prompt.tools, convo)];
        let t = performance.now();
        const search = await api.ok("POST", `/v1/sessions/${s.id}/tool-search`, {
          query: "select:mcp__tracker__list_issues,mcp__tracker__get_issue",
        });
        convo.push(
          callMsg("c0", "toolSearch", { query: "select:mcp__tracker__list_issues,mcp__tracker__get_issue" }),
          resultMsg("c0", search.result),
        );
        sent.push(tokensOf(prompt.tools, convo));
        const calls: Array<[string, Json]> = [["mcp__tracker__list_issues", { repo: REPO, limit: n }]];
        for (let i = 1; i <= n; i++) calls.push(["mcp__tracker__get_issue", { repo: REPO, id: i }]);
        for (const [k, [name, args]] of calls.entries()) {
          const res = await api.call(s.id, name, args);
          convo.push(callMsg(`c${k + 1}`, "callTool", { name, arguments: args }), resultMsg(`c${k + 1}`, res.body.content[0].text));
          sent.push(tokensOf(prompt.tools, convo));
        }
        const roundsMs = performance.now() - t;
        // code mode: toolSearch, then one runCode
        const cs = await api.ok("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", activation: "proxy", code: "on" });
        const cprompt = await api.ok("GET", `/v1/sessions/${cs.id}/prompt`);
        // the session's own prompt lists runCode, as the chat surfaces send it
        const ctools = cprompt.tools as Json[];
        if (!ctools.some((t) => t.function?.name === RUN_CODE_TOOL.name)) throw new Error("the code-mode prompt lists no runCode");
        const cconvo: Msg[] = [{ role: "system", content: cprompt.system }, user];
        const csent: number[] = [tokensOf(ctools, cconvo)];
        t = performance.now();
        const csearch = await api.ok("POST", `/v1/sessions/${cs.id}/tool-search`, {
          query: "select:mcp__tracker__list_issues,mcp__tracker__get_issue",
        });
        cconvo.push(
          callMsg("c0", "toolSearch", { query: "select:mcp__tracker__list_issues,mcp__tracker__get_issue" }),
          resultMsg("c0", csearch.result),
        );
        csent.push(tokensOf(ctools, cconvo));
        const run = await api.ok("POST", `/v1/sessions/${cs.id}/code`, { code: program(n) });
        if (run.error || run.value?.issues !== n) throw new Error(`the program failed: ${JSON.stringify(run).slice(0, 400)}`);
        const codeMs = performance.now() - t;
        cconvo.push(callMsg("c1", "runCode", { code: program(n) }), resultMsg("c1", JSON.stringify(run)));
        csent.push(tokensOf(ctools, cconvo));
        if (r === 0) continue; // warm-up
        walls.rounds.push(roundsMs);
        walls.code.push(codeMs);
        tokens = { rounds: sent.reduce((a, b) => a + b, 0), code: csent.reduce((a, b) => a + b, 0) };
      }
      const [wr, wc] = [p50(walls.rounds), p50(walls.code)];
      if (n === 20) Object.assign(at20, { tokens: 1 - tokens.code / tokens.rounds, wall: wr / wc });
      if (n === 100) at20.wc100 = wc;
      rows.push([
        n,
        n + 3,
        tokens.rounds,
        3,
        tokens.code,
        `${fmt((1 - tokens.code / tokens.rounds) * 100)}%`,
        fmt(wr, 0),
        fmt(wc, 0),
        `${fmt(wr / wc, 1)}x`,
      ]);
      // each path's measured Worker wall plus the assumed model time of each of its requests
      const [ar, ac] = [wr + (n + 3) * ASSUMED_MODEL_MS, wc + 3 * ASSUMED_MODEL_MS];
      if (n === 20) at20.assumed = ar / ac;
      assumed.push([n, n + 3, fmt(ar, 0), 3, fmt(ac, 0), `${fmt(ar / ac, 1)}x`]);
    }
    // a run's start, and a call inside a run against one callTool
    const s = await api.ok("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", code: "on" });
    const starts: number[] = [];
    for (let i = 0; i < 41; i++) {
      const t = performance.now();
      await api.ok("POST", `/v1/sessions/${s.id}/code`, { code: "return 1" });
      if (i) starts.push(performance.now() - t);
    }
    const single: number[] = [];
    for (let i = 0; i < 41; i++) {
      const t = performance.now();
      await api.call(s.id, "mcp__tracker__get_issue", { repo: REPO, id: (i % 20) + 1 });
      if (i) single.push(performance.now() - t);
    }
    const inRun: number[] = [];
    const seq = `let n = 0; for (let id = 1; id <= 20; id++) n += (await tools.tracker.get_issue({ repo: "${REPO}", id })).length; return n;`;
    for (let i = 0; i < 11; i++) {
      const t = performance.now();
      await api.ok("POST", `/v1/sessions/${s.id}/code`, { code: seq });
      if (i) inRun.push((performance.now() - t - p50(starts)) / 20);
    }
    const demo = readdirSync(join(ROOT, "catalogs")).find((f) => /^demo@.*\.json$/.test(f))!;
    const cat = JSON.parse(await readFile(join(ROOT, "catalogs", demo), "utf8")) as { tools: Json[] };
    const jsonTokens = cat.tools.reduce((a, t) => a + Number(t.tokens.definition), 0);
    const declTokens = count(toolsDeclaration(cat.tools));
    const declSum = cat.tools.reduce((a, t) => a + Number(t.tokens.declaration), 0);
    const intro = [
      machineLine(),
      "",
      "A scripted task: read N issues of a tracker (a real MCP server; each issue about 2 KB of JSON) and say how many are bugs, with three titles. One call per round: toolSearch, list_issues, then N get_issue calls through callTool, each a model round whose result enters the context. Code mode: toolSearch, then one runCode whose program makes the same N + 1 calls (CODE_PARALLEL 4) and returns a summary. Tokens sent: the conversation each would send, counted with o200k_base as OpenAI bills a request (tools, then every message), summed over its requests. Wall: the Worker's side only, each path's requests back to back through `wrangler dev` (no model round is timed: none is reachable offline), median of 3 after a warm-up.",
    ].join("\n");
    const main = tableSection(
      "## 13. Code mode",
      intro,
      [
        "N",
        "requests, one call a round",
        "tokens sent",
        "requests, code mode",
        "tokens sent",
        "fewer tokens",
        "wall ms, rounds",
        "wall ms, code",
        "wall, rounds / code",
      ],
      rows,
    );
    const perParallelCall = (at20.wc100! - p50(starts)) / 101;
    const extra = [
      `Targets at N = 20: at least 80% fewer tokens (${fmt(at20.tokens! * 100)}%) and 3x less wall time (${fmt(at20.wall!, 1)}x, the Worker's side with a model that costs nothing).`,
      "",
      `Where a run's time goes: with no model time, both paths make the same N + 1 calls through the session's one execution path; code mode saves each call's REST request and runs up to CODE_PARALLEL (4) at once. At N = 100 a call inside the parallel run costs ${fmt(perParallelCall)} ms of wall (the run's start taken off) against ${fmt(p50(inRun))} ms for a call in sequence (below) and ${fmt(p50(single))} ms for one callTool over REST: four at once are ${fmt(p50(inRun) / perParallelCall, 1)}x as fast as one at a time, not 4x. The tracker answers at once, so what each call costs is the Worker's own work for it, and here one workerd thread runs the Worker and its session objects: calls overlap only while they wait on a server (the parallel-calls test's slow tool), and work on one thread does not. What a run saves at 0 latency is the REST request per call, not the call.`,
      "",
      `Wall time with an assumed model latency, not measured: each path's measured Worker wall above plus ${ASSUMED_MODEL_MS} ms for each of its model requests, as a scripted model that answers every request after ${ASSUMED_MODEL_MS} ms would add (an assumption: no real model was timed). At N = 20: ${fmt(at20.assumed!, 1)}x.`,
      "",
      table(
        [
          "N",
          "model requests, one call a round",
          `wall ms, rounds + ${ASSUMED_MODEL_MS} ms a request (assumed)`,
          "model requests, code mode",
          `wall ms, code + ${ASSUMED_MODEL_MS} ms a request (assumed)`,
          "wall, rounds / code (assumed latency)",
        ],
        assumed,
      ),
      "",
      `A run's start (\`return 1\`, REST, 40 runs): p50 ${fmt(p50(starts))} ms, p99 ${fmt(pct(starts, 99))} ms. A call inside a run (20 in sequence, the start taken off, 10 runs): p50 ${fmt(p50(inRun))} ms against ${fmt(p50(single))} ms for one callTool over REST (${fmt(p50(inRun) / p50(single), 2)}x; target within 1.2x).`,
      "",
      `Declarations against JSON schemas, the demo catalog's ${cat.tools.length} tools: ${declTokens} tokens as one TypeScript declaration of \`tools\` against ${jsonTokens} as OpenAI-form JSON definitions (${fmt(declTokens / jsonTokens, 2)}x). \`catalog stats\` and GET /v1/catalog report the sum of each tool's stored count instead: ${declSum} against ${jsonTokens}.`,
      "",
    ].join("\n");
    return `${main}\n${extra}`;
  } finally {
    await dev.stop();
    tracker.stop();
    await rm(join(TEST_CATALOGS, "tracker@1.0.0.json"), { force: true });
    await writeWorkerFiles(TEST_CATALOGS, join(TEST_CATALOGS, "files.ts"));
  }
}
