// Real agent CLIs through the MCP gateway, as a user would run them: Codex CLI (`codex exec`),
// opencode (`opencode run`), Gemini CLI and Qwen Code (`-p`) from npm, each with its default
// settings and docs/mcp-clients.md's recipe, the gateway under `wrangler dev` (server-everything
// behind SERVERS) as their only MCP server, and a scripted model that calls toolSearch, then the
// found tool through callTool in the very next step, then answers. No client re-lists tools in
// time, and each prefixes the gateway's tool names its own way (Codex: a Responses namespace
// `mcp__toolsearch`; opencode: `toolsearch_`; Gemini CLI: `mcp_toolsearch_`; Qwen Code:
// `mcp__toolsearch__`): the stable surface needs neither. Pass = the server's answer reaches the
// agent's final text, and its first model request carries the deferred listing once. Codex also on
// `/mcp?code=on`: toolSearch, then one runCode program on the very next step.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodex, runOpencode, type Gateway } from "../fixtures/agent-clis.ts";
import { runGemini, runQwen } from "../fixtures/agent-clis-gemini.ts";
import { startAgentGateway, type AgentGateway } from "../fixtures/agent-gateway.ts";

let up: AgentGateway;
let model: AgentGateway["model"];
let gateway: Gateway;

beforeAll(async () => {
  up = await startAgentGateway("toolsearch-agents-");
  ({ model, gateway } = up);
}, 120_000);
afterAll(() => up?.stop());

/**
 * What the first model request of a conversation carries: toolSearch inline, and the deferred
 * listing once (each server-everything tool name at most once, in whatever the client sent: tool
 * descriptions, system prompt, the gateway's instructions).
 */
function firstRequestSaysListingOnce(from: number) {
  // the conversation's first request (opencode and Kilo first ask, without tools, for a title)
  const first = model.requests.slice(from).find((r) => r.tools.length)!;
  expect("call" in first.step && first.step.call.name.endsWith("toolSearch")).toBe(true);
  const names = JSON.stringify(first.body).match(/mcp__everything__[\w-]+/g) ?? [];
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  expect(counts.get("mcp__everything__echo")).toBe(1);
  expect([...counts].filter(([, n]) => n > 1)).toEqual([]);
}

/** The model's steps of one conversation, from its first toolSearch call to its answer. */
function stepsAfterSearch(from: number) {
  const steps = model.requests.slice(from).map((r) => ("call" in r.step ? r.step.call.name : "answer"));
  return steps.slice(steps.findIndex((s) => s.endsWith("toolSearch")));
}

/**
 * One conversation: the CLI calls toolSearch, then callTool in the very next step (as it names
 * them: `search`, `call`), the server's answer reaches its final text, and its first model request
 * carries the deferred listing once.
 */
async function searchThenCall(runAgent: typeof runCodex, phrase: string, calls: [string, string], steps = calls) {
  const from = model.requests.length;
  const r = await runAgent(gateway, `Find the echo tool and echo the phrase '${phrase}'.`);
  expect(r.calls).toEqual(calls);
  expect(r.text).toContain(`Echo: ${phrase}`);
  expect(stepsAfterSearch(from)).toEqual([...steps, "answer"]);
  firstRequestSaysListingOnce(from);
  return from;
}

describe("real agent CLIs through the gateway's stable surface", () => {
  it("Codex CLI: toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    await searchThenCall(runCodex, "blue-harbor-42", ["toolsearch.toolSearch", "toolsearch.callTool"], ["toolSearch", "callTool"]);
    // Codex offered the gateway's tools in a namespace named after the server
    const offered = model.requests.at(-1)!.tools.filter((t) => t.namespace === "mcp__toolsearch");
    expect(offered.map((t) => t.name).sort()).toEqual(["callTool", "toolSearch"]);
  }, 240_000);

  it("Codex CLI on /mcp?code=on: toolSearch, then runCode in the next step, its program's answer in the final text", async () => {
    const from = model.requests.length;
    const r = await runCodex({ ...gateway, url: `${gateway.url}?code=on` }, "Find the echo tool and echo the phrase 'amber-gate-9'.");
    expect(r.calls).toEqual(["toolsearch.toolSearch", "toolsearch.runCode"]);
    expect(r.text).toContain("Echo: amber-gate-9");
    expect(stepsAfterSearch(from)).toEqual(["toolSearch", "runCode", "answer"]);
    const step = model.requests.slice(from).find((q) => "call" in q.step && q.step.call.name === "runCode")!.step;
    expect("call" in step && step.args.code).toBe('return await tools["mcp__everything__echo"]({"message":"amber-gate-9"});');
  }, 240_000);

  it("opencode: toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    await searchThenCall(runOpencode, "green-field-7", ["toolsearch_toolSearch", "toolsearch_callTool"]);
  }, 240_000);

  it("Gemini CLI (Gemini API): toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    const from = await searchThenCall(runGemini, "red-kite-3", ["mcp_toolsearch_toolSearch", "mcp_toolsearch_callTool"]);
    expect(model.requests[from]!.api).toBe("gemini");
  }, 240_000);

  it("Qwen Code with alwaysLoadTools: toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    await searchThenCall(runQwen, "grey-owl-5", ["mcp__toolsearch__toolSearch", "mcp__toolsearch__callTool"]);
  }, 240_000);
});
