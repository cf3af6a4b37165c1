// `npm run bench:mcp`: the MCP gateway (/mcp) in `wrangler dev` on the demo catalog.
// (1) Tokens an MCP client holds after connecting (initialize instructions + tools/list, o200k),
//     in each listing form, on the stable surface (the default) and the dynamic one
//     (`?activation=inject`), against connecting the same 12 servers directly (every tool as each
//     server lists it: the catalog's snapshot, which `catalog build --check` keeps equal to the
//     live servers). SERVERS names all 12 demo servers here, so the gateway offers every tool;
//     nothing is called on them in this part.
// (2) Per-request latency of tools/list, toolSearch and tools/call (server-everything's echo)
//     through the gateway, directly and through callTool, each as a ratio over the same client
//     calling server-everything directly over Streamable HTTP (a direct client has no search: its
//     nearest act, tools/list, is the base for toolSearch). Interleaved, medians, one run.
// (3) Real agent CLIs (Codex CLI, opencode, Gemini CLI, Qwen Code, Kilo) and MCP client libraries
//     (the AI SDK's MCP client, LangChain's MCP adapters) with a scripted model: model steps from
//     the first toolSearch call to the answer, and for the CLIs the tokens the gateway puts in the
//     first model request (its tools as the CLI formatted them, and its instructions if the CLI
//     passed them on). Writes section 9 of RESULTS.md.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { mcpTool } from "../../worker/core/mcp-tools.ts";
import { runCodex, runKilo, runOpencode } from "../fixtures/agent-clis.ts";
import { runGemini, runQwen } from "../fixtures/agent-clis-gemini.ts";
import { runAiSdk, runLangchain } from "../fixtures/mcp-client-libs.ts";
import { startEdgeServers } from "../fixtures/edge-servers.ts";
import { startScriptedAgentModel } from "../fixtures/scripted-agent-model.ts";
import { DEV_API_KEY, DEV_AUTH, startWranglerDev } from "../fixtures/wrangler-dev.ts";
import { BENCH_WORK, ROOT } from "./catalogs.ts";
import { pinnedDemo, replaceSection } from "./results.ts";

const ROUNDS = 200;
const enc = new Tiktoken(o200k);
const tokens = (text: string) => enc.encode(text, [], []).length;
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const int = (n: number) => n.toLocaleString("en-US");

async function client(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const c = new Client({ name: "bench-mcp", version: "1.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}

/** What a client holds after connecting: the instructions and every page of tools/list. */
async function held(c: Client): Promise<{ tokens: number; tools: number }> {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await c.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return { tokens: tokens(c.getInstructions() ?? "") + tokens(JSON.stringify(tools)), tools: tools.length };
}

/**
 * Tokens the gateway puts in a model request, as the client formatted them: each of its tools
 * (toolSearch, callTool: any object named so, under the client's prefix) and its instructions
 * when the client passed them on.
 */
function gatewayTokens(body: unknown, instructions: string): { tokens: number; instructions: boolean } {
  let n = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!v || typeof v !== "object") return;
    const name = (v as { name?: unknown }).name;
    if (typeof name === "string" && /(toolSearch|callTool)$/.test(name)) n += tokens(JSON.stringify(v));
    else Object.values(v).forEach(walk);
  };
  walk(body);
  const passed = JSON.stringify(body).includes(JSON.stringify(instructions.trim().split("\n")[0]).slice(1, -1));
  return { tokens: n + (passed ? tokens(instructions) : 0), instructions: passed };
}

async function time(f: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await f();
  return performance.now() - t;
}

async function main(): Promise<void> {
  await mkdir(BENCH_WORK, { recursive: true });
  const { catalog } = await readCatalogFile(join(ROOT, "catalogs", await pinnedDemo()));
  const servers = await startEdgeServers();
  // every demo server in SERVERS (only server-everything answers calls: part 2 calls only it)
  const SERVERS = JSON.stringify(Object.fromEntries(catalog.servers.map((s) => [s.name, { url: servers.everything }])));
  const dev = await startWranglerDev({ persistTo: join(BENCH_WORK, `mcp-${Date.now()}`), vars: { SERVERS } });
  const lines: string[] = [];
  try {
    // (1) tokens held after connecting
    const direct = catalog.servers.map((s) => catalog.tools.filter((t) => t.server === s.name).map(mcpTool));
    const directTokens =
      direct.reduce((n, tools) => n + tokens(JSON.stringify(tools)), 0) +
      catalog.servers.reduce((n, s) => n + tokens(s.instructions ?? ""), 0);
    lines.push(
      `Demo catalog (${catalog.tools.length} tools, ${catalog.servers.length} servers), default model (claude-sonnet-4-5, 200k window: \`auto\` keeps \`names\`). Tokens (o200k_base) of the initialize instructions plus every tools/list page, as the client received them; direct: each server's tools/list (the catalog snapshot) and instructions.`,
      "",
      "| connection | surface | tools listed | tokens held | share of direct |",
      "|---|---|---|---|---|",
      `| the 12 servers directly | | ${catalog.tools.length} | ${int(directTokens)} | 100% |`,
    );
    for (const listing of ["auto", "names", "grouped", "servers", "none"]) {
      for (const [surface, query] of [
        ["stable", ""],
        ["dynamic", "&activation=inject"],
      ]) {
        const c = await client(`${dev.url}/mcp?listing=${listing}${query}`, DEV_AUTH);
        const h = await held(c);
        lines.push(
          `| gateway, listing=${listing} | ${surface} | ${h.tools} | ${int(h.tokens)} | ${((100 * h.tokens) / directTokens).toFixed(1)}% |`,
        );
        await c.close();
      }
    }
    // (2) latency, interleaved: direct list, gateway list, gateway search, direct call, gateway call
    const d = await client(servers.everything);
    const g = await client(`${dev.url}/mcp`, DEV_AUTH);
    await g.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    const ms = {
      dList: [] as number[],
      gList: [] as number[],
      gSearch: [] as number[],
      dCall: [] as number[],
      gCall: [] as number[],
      gVia: [] as number[],
    };
    for (let i = 0; i < ROUNDS + 20; i++) {
      const keep = i >= 20; // warm-up
      const dl = await time(() => d.listTools());
      const gl = await time(() => g.listTools());
      const gs = await time(() =>
        g.callTool({ name: "toolSearch", arguments: { query: i % 2 ? "echo a message" : "select:mcp__everything__echo" } }),
      );
      const dc = await time(() => d.callTool({ name: "echo", arguments: { message: `m${i}` } }));
      const gc = await time(() => g.callTool({ name: "mcp__everything__echo", arguments: { message: `m${i}` } }));
      const gv = await time(() =>
        g.callTool({ name: "callTool", arguments: { name: "mcp__everything__echo", arguments: { message: `v${i}` } } }),
      );
      if (keep) (ms.dList.push(dl), ms.gList.push(gl), ms.gSearch.push(gs), ms.dCall.push(dc), ms.gCall.push(gc), ms.gVia.push(gv));
    }
    const row = (what: string, gw: number[], base: number[], baseName: string) =>
      `| ${what} | ${p(gw, 0.5).toFixed(1)} | ${p(gw, 0.99).toFixed(1)} | ${p(base, 0.5).toFixed(1)} (${baseName}) | ${(p(gw, 0.5) / p(base, 0.5)).toFixed(2)}x |`;
    lines.push(
      "",
      `Latency per request, ${ROUNDS} rounds after 20 of warm-up, each round one of each request in turn, the MCP SDK client over Streamable HTTP on 127.0.0.1 (the gateway through wrangler dev and its local proxy).`,
      "",
      "| request through the gateway | p50 ms | p99 ms | direct p50 ms | gateway / direct at p50 |",
      "|---|---|---|---|---|",
      row("tools/list", ms.gList, ms.dList, "tools/list"),
      row("tools/call toolSearch", ms.gSearch, ms.dList, "tools/list"),
      row("tools/call echo", ms.gCall, ms.dCall, "tools/call echo"),
      row("tools/call callTool → echo", ms.gVia, ms.dCall, "tools/call echo"),
      "",
      `callTool over a direct tools/call of the same tool through the gateway, at p50: ${(p(ms.gVia, 0.5) / p(ms.gCall, 0.5)).toFixed(2)}x.`,
    );
    await d.close();
    await g.close();
    // (3) real agent CLIs: model steps from the first toolSearch to the answer
    const model = await startScriptedAgentModel();
    try {
      lines.push(
        "",
        "Real agent CLIs and MCP client libraries (in an app's own tool loop: the AI SDK's `generateText`, a LangGraph ReAct agent), default settings, the gateway's stable surface as their MCP server, a scripted model (toolSearch, then callTool, then the answer). Steps: model requests after the first toolSearch call up to the answer (target 2).",
        "",
        "| client | tools it called | steps from toolSearch to the answer | server's answer in final text | instructions passed to the model | gateway's tokens in the first request | wall time s |",
        "|---|---|---|---|---|---|---|",
      );
      const g0 = await client(`${dev.url}/mcp`, DEV_AUTH);
      const instructions = g0.getInstructions() ?? "";
      await g0.close();
      const gateway = { url: `${dev.url}/mcp`, key: DEV_API_KEY, model: model.url };
      for (const [name, runAgent] of [
        ["Codex CLI 0.171.0 (`codex exec`)", runCodex],
        ["opencode 1.18.33 (`opencode run`)", runOpencode],
        ["Gemini CLI 0.61.0 (`gemini -p`)", runGemini],
        ["Qwen Code 0.24.4 (`qwen -p`, alwaysLoadTools)", runQwen],
        ["Kilo Code CLI 7.7.7 (`kilo run`)", runKilo],
        ["`@ai-sdk/mcp` 2.0.99 + `ai` 7.0.173", runAiSdk],
        ["`@langchain/mcp-adapters` 1.1.4 + `@langchain/langgraph` 1.7.3", runLangchain],
      ] as const) {
        const from = model.requests.length;
        const r = await runAgent(gateway, "Find the echo tool and echo the phrase 'bench-phrase-1'.");
        const steps = model.requests.slice(from).map((q) => ("call" in q.step ? q.step.call.name : "answer"));
        const after = steps.length - 1 - steps.findIndex((s) => s.endsWith("toolSearch"));
        const ok = r.text.includes("Echo: bench-phrase-1") ? "yes" : "no";
        // the conversation's first request (opencode and Kilo first ask, without tools, for a title)
        const first = model.requests.slice(from).find((q) => q.tools.length);
        const held = first ? gatewayTokens(first.body, instructions) : { tokens: 0, instructions: false };
        const firstCell = runAgent === runAiSdk || runAgent === runLangchain ? "" : int(held.tokens);
        const passed = firstCell ? (held.instructions ? "yes" : "no") : "";
        lines.push(`| ${name} | ${r.calls.join(", ")} | ${after} | ${ok} | ${passed} | ${firstCell} | ${(r.ms / 1000).toFixed(1)} |`);
      }
    } finally {
      await model.close();
    }
  } finally {
    await dev.stop();
    await servers.stop();
  }
  await replaceSection("## 9. MCP gateway", `Produced by \`npm run bench:mcp\` (test/bench/mcp.ts).\n\n${lines.join("\n")}`);
  console.log(lines.join("\n"));
}

await main();
