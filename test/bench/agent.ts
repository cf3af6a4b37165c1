// `npm run bench:agent`: a 20-turn scripted conversation on the demo catalog (6 tools activated
// along the way), four ways: the agent endpoint in `inject` and `proxy` mode, full injection of
// every tool (client -> upstream directly), and client-side tool search that rebuilds and re-sorts
// its tools each turn. Per way: prompt tokens sent upstream, the share that repeated the previous
// request's prefix (the scripted upstream's cached_tokens), and for the endpoint the time it adds
// per client request over the upstream's own time. Then the AI SDK declaring all 191 tools
// (agent-sdk.ts), direct and through the Worker, the same through /v1/responses with
// previous_response_id (agent-responses.ts), through /v1/messages with the Anthropic SDK over
// either upstream kind and directly to the Messages upstream (agent-messages.ts), and what client
// tool sets cost the Worker (client-index.ts). Writes section 7 of RESULTS.md.
import OpenAI from "openai";
import { rm } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { deferredSection } from "../../worker/core/listing.ts";
import { openaiTool, toolDefinition, TOOL_SEARCH_TOOL } from "../../worker/core/prompt.ts";
import { searchCatalog } from "../../worker/core/search.ts";
import { answerToolSearch } from "../../worker/core/tool-search.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { DEV_API_KEY, startWranglerDev } from "../fixtures/wrangler-dev.ts";
import { BENCH_WORK, ROOT } from "./catalogs.ts";
import { aiSdkConversation, aiSdkTable, type SdkRow } from "./agent-sdk.ts";
import { responsesConversation } from "./agent-responses.ts";
import { messagesConversation } from "./agent-messages.ts";
import { clientIndexBench, clientIndexTable } from "./client-index.ts";
import { p50, pinnedDemo, replaceSection } from "./results.ts";

type Msg = OpenAI.ChatCompletionMessageParam;
type Call = OpenAI.ChatCompletionMessageFunctionToolCall;

const GOALS: Array<[string, string]> = [
  ["create an issue on github", "mcp__github__create_issue"],
  ["navigate the browser to a page", "mcp__playwright__browser_navigate"],
  ["list collections in mongodb", "mcp__mongodb__list-collections"],
  ["read graph of memory", "mcp__memory__read_graph"],
  ["echo a message with everything", "mcp__everything__echo"],
  ["search repositories on github", "mcp__github__search_repositories"],
];
// 20 turns: each of the 6 tools first appears (and is activated) once, then comes back
export const TURNS = [0, 1, 2, 0, 3, 1, 4, 2, 0, 5, 3, 1, 4, 5, 2, 0, 3, 4, 1, 5].map((i) => GOALS[i]!);
const SYSTEM = "You are a helpful agent. Use the tools to do what the user asks.";
const LATENCY_MS = 50;

export interface AgentRow {
  way: string;
  upstreamCalls: number;
  promptTokens: number;
  cachedShare: number;
  /** per client request: wall time at the client minus the upstream's own time */
  addedMsP50: number;
  ratio: number;
}

type Send = (messages: Msg[]) => Promise<OpenAI.ChatCompletionMessage>;

/** The conversation, driven the same way for every way of sending it. */
async function converse(send: Send, llm: ScriptedLLM, label: string): Promise<{ added: number[]; clientMs: number; upstreamMs: number }> {
  const messages: Msg[] = [{ role: "system", content: SYSTEM }];
  const added: number[] = [];
  let clientMs = 0;
  let upstreamMs = 0;
  const timed = async () => {
    const before = llm.requests.length;
    const t = performance.now();
    const m = await send(messages);
    const wall = performance.now() - t;
    const up = llm.requests.slice(before).reduce((n, r) => n + r.ms, 0);
    added.push(wall - up);
    clientMs += wall;
    upstreamMs += up;
    return m;
  };
  for (const [goal, tool] of TURNS) {
    messages.push({ role: "user", content: goal });
    const m = await timed();
    const call = m.tool_calls?.[0] as Call | undefined;
    if (call?.function.name !== tool) throw new Error(`${label}: "${goal}" called ${call?.function.name ?? "nothing"}, expected ${tool}`);
    messages.push(m as Msg, { role: "tool", tool_call_id: call.id, content: `ok: ${tool} ran` });
    const answer = await timed();
    messages.push(answer as Msg);
  }
  return { added, clientMs, upstreamMs };
}

function row(way: string, llm: ScriptedLLM, r: { added: number[]; clientMs: number; upstreamMs: number }): AgentRow {
  const prompt = llm.requests.reduce((n, q) => n + q.usage.prompt_tokens, 0);
  const cached = llm.requests.reduce((n, q) => n + q.usage.cached_tokens, 0);
  return {
    way,
    upstreamCalls: llm.requests.length,
    promptTokens: prompt,
    cachedShare: cached / prompt,
    addedMsP50: p50(r.added),
    ratio: r.clientMs / r.upstreamMs,
  };
}

export async function agentBench(): Promise<{ rows: AgentRow[]; sdk: SdkRow[] }> {
  const file = await pinnedDemo();
  const { catalog, index } = await readCatalogFile(join(ROOT, "catalogs", file));
  const cat = searchCatalog(catalog.tools, index);
  const llm = await startScriptedLLM({ latencyMs: LATENCY_MS });
  // fresh state: conversations without a session header reach sessions named by their beginning
  const persist = join(BENCH_WORK, "agent-state");
  await rm(persist, { recursive: true, force: true });
  // the scripted model also speaks Messages: the Worker's Anthropic upstream is the same server
  const messagesBase = llm.url.replace(/\/v1$/, "");
  const dev = await startWranglerDev({
    persistTo: persist,
    vars: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "bench", ANTHROPIC_BASE_URL: messagesBase, ANTHROPIC_API_KEY: "bench" },
  });
  const rows: AgentRow[] = [];
  const sdk: SdkRow[] = [];
  try {
    for (const activation of ["inject", "proxy"]) {
      llm.reset();
      const client = new OpenAI({ baseURL: `${dev.url}/v1`, apiKey: DEV_API_KEY, maxRetries: 0 });
      let session: string | undefined;
      const send: Send = async (messages) => {
        const { data, response } = await client.chat.completions
          .create(
            { model: "gpt-4o", messages },
            { headers: session ? { "x-toolsearch-session": session } : { "x-toolsearch-activation": activation } },
          )
          .withResponse();
        session ??= response.headers.get("x-toolsearch-session")!;
        return data.choices[0]!.message;
      };
      rows.push(row(`endpoint, ${activation}`, llm, await converse(send, llm, activation)));
    }
    const direct = new OpenAI({ baseURL: llm.url, apiKey: "bench", maxRetries: 0 });
    const all = catalog.tools.map((t) => openaiTool(toolDefinition(t)) as OpenAI.ChatCompletionTool);
    llm.reset();
    const full: Send = async (messages) =>
      (await direct.chat.completions.create({ model: "gpt-4o", messages, tools: all })).choices[0]!.message;
    rows.push(row("full injection (direct)", llm, await converse(full, llm, "full")));

    // client-side search: toolSearch rounds run in the client, loaded tools re-sorted every turn
    llm.reset();
    const loaded = new Set<string>();
    const section = deferredSection(catalog.tools.map((t) => t.name));
    const reinject: Send = async (messages) => {
      const withSection = messages.map((m, i) => (i === 0 ? { ...m, content: `${SYSTEM}\n\n${section}` } : m)) as Msg[];
      for (;;) {
        const tools = [TOOL_SEARCH_TOOL, ...[...loaded].sort().map((n) => toolDefinition(cat.byName.get(n)!))].map(
          (t) => openaiTool(t) as OpenAI.ChatCompletionTool,
        );
        const m = (await direct.chat.completions.create({ model: "gpt-4o", messages: withSection, tools })).choices[0]!.message;
        const search = m.tool_calls?.find((c) => (c as Call).function.name === "toolSearch") as Call | undefined;
        if (!search) return m;
        const { query } = JSON.parse(search.function.arguments) as { query: string };
        const answer = await answerToolSearch(cat, { mode: "deferred", activation: "inject" }, query, undefined, async (names) => {
          const fresh = names.filter((n) => !loaded.has(n));
          fresh.forEach((n) => loaded.add(n));
          return { loaded: fresh, alreadyLoaded: names.filter((n) => !fresh.includes(n)), activations: [...loaded] };
        });
        withSection.push(m as Msg, { role: "tool", tool_call_id: search.id, content: answer!.result });
      }
    };
    rows.push(row("client-side search, re-sorted tools (direct)", llm, await converse(reinject, llm, "client-side")));

    const turns = TURNS.map(([goal, tool]) => [goal, tool] as const);
    sdk.push(
      await aiSdkConversation(
        { way: "AI SDK direct (every schema on every request)", baseURL: llm.url, apiKey: "bench" },
        catalog.tools,
        turns,
        SYSTEM,
        llm,
      ),
    );
    for (const activation of ["inject", "proxy"]) {
      const target = {
        way: `AI SDK through the Worker, ${activation}`,
        baseURL: `${dev.url}/v1`,
        apiKey: DEV_API_KEY,
        headers: { "x-toolsearch-activation": activation },
        persist,
      };
      sdk.push(await aiSdkConversation(target, catalog.tools, turns, SYSTEM, llm));
    }
    for (const activation of ["inject", "proxy"]) {
      const target = {
        way: `Responses API through the Worker, ${activation}`,
        baseURL: `${dev.url}/v1`,
        apiKey: DEV_API_KEY,
        headers: { "x-toolsearch-activation": activation },
        persist,
      };
      sdk.push(await responsesConversation(target, catalog.tools, turns, SYSTEM, llm));
    }
    const messagesDirect = {
      way: "Messages API direct to the Messages upstream (every schema on every request)",
      baseURL: messagesBase,
      apiKey: "bench",
    };
    sdk.push(await messagesConversation(messagesDirect, catalog.tools, turns, SYSTEM, llm));
    for (const upstream of ["chat", "anthropic"])
      for (const activation of ["inject", "proxy"]) {
        const target = {
          way: `Messages API through the Worker, ${upstream === "chat" ? "Chat Completions" : "Messages"} upstream, ${activation}`,
          baseURL: dev.url,
          apiKey: DEV_API_KEY,
          headers: { "x-toolsearch-activation": activation, "x-toolsearch-upstream": upstream },
          persist,
        };
        sdk.push(await messagesConversation(target, catalog.tools, turns, SYSTEM, llm));
      }
  } finally {
    await dev.stop();
    await llm.close();
  }
  return { rows, sdk };
}

export function agentSection(rows: AgentRow[]): string {
  const f = (n: number, d = 1) => n.toFixed(d);
  const lines = [
    `20 user turns on the demo catalog (6 tools activated, each used again later), 40 client requests; the scripted upstream (test/fixtures/scripted-llm.ts) adds ${LATENCY_MS} ms per call and reports cached_tokens as the o200k tokens of the longest common prefix with the previous request, rendered tools first (OpenAI's order). Endpoint rows run through wrangler dev on 127.0.0.1. Target: >= 95% prefix repeat for the endpoint.`,
    "",
    "| way | upstream calls | prompt tokens sent | repeated prefix | added ms per request (p50) | client time / upstream time |",
    "|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.way} | ${r.upstreamCalls} | ${r.promptTokens.toLocaleString("en-US")} | ${f(r.cachedShare * 100)}% | ${f(r.addedMsP50)} | ${f(r.ratio, 2)} |`,
    ),
  ];
  return lines.join("\n");
}

if (import.meta.main) {
  const { rows, sdk } = await agentBench();
  const index = await clientIndexBench();
  // the machine is shared: say how busy it was
  const load = `Load average over the last 5 minutes of the run: ${loadavg()[1]!.toFixed(1)} on ${cpus().length} cores.`;
  const text = [load, agentSection(rows), aiSdkTable(sdk), clientIndexTable(index)].join("\n\n");
  console.log(text);
  await replaceSection("## 7. Agent endpoint", text);
  process.exit(0);
}
