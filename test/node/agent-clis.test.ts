// Real agent CLIs through the MCP gateway, as a user would run them: Codex CLI (`codex exec`) and
// opencode (`opencode run`) from npm, each with its default settings, the gateway under `wrangler
// dev` (server-everything behind SERVERS) as their only MCP server, and a scripted model that
// calls toolSearch, then the found tool through callTool in the very next step, then answers.
// Neither client re-lists tools in time, and each prefixes the gateway's tool names its own way
// (Codex: a Responses namespace `mcp__toolsearch`; opencode: `toolsearch_`): the stable surface
// needs neither. Pass = the server's answer reaches the agent's final text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodex, runOpencode, type Gateway } from "../fixtures/agent-clis.ts";
import { startEverything } from "../fixtures/edge-servers.ts";
import { startScriptedAgentModel, type ScriptedAgentModel } from "../fixtures/scripted-agent-model.ts";
import { DEV_API_KEY, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";

let everything: { url: string; stop(): Promise<void> };
let dev: DevServer;
let model: ScriptedAgentModel;
let gateway: Gateway;

beforeAll(async () => {
  everything = await startEverything();
  dev = await startWranglerDev({
    persistTo: await tempDir("toolsearch-agents-"),
    vars: { SERVERS: JSON.stringify({ everything: { url: everything.url } }) },
  });
  model = await startScriptedAgentModel();
  gateway = { url: `${dev.url}/mcp`, key: DEV_API_KEY, model: model.url };
}, 120_000);
afterAll(async () => {
  await dev?.stop();
  await everything?.stop();
  await model?.close();
});

/** The model's steps of one conversation, from its first toolSearch call to its answer. */
function stepsAfterSearch(from: number) {
  const steps = model.requests.slice(from).map((r) => ("call" in r.step ? r.step.call.name : "answer"));
  return steps.slice(steps.findIndex((s) => s.endsWith("toolSearch")));
}

describe("real agent CLIs through the gateway's stable surface", () => {
  it("Codex CLI: toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    const from = model.requests.length;
    const r = await runCodex(gateway, "Find the echo tool and echo the phrase 'blue-harbor-42'.");
    expect(r.calls).toEqual(["toolsearch.toolSearch", "toolsearch.callTool"]);
    expect(r.text).toContain("Echo: blue-harbor-42");
    expect(stepsAfterSearch(from)).toEqual(["toolSearch", "callTool", "answer"]);
    // Codex offered the gateway's tools in a namespace named after the server
    const offered = model.requests.at(-1)!.tools.filter((t) => t.namespace === "mcp__toolsearch");
    expect(offered.map((t) => t.name).sort()).toEqual(["callTool", "toolSearch"]);
  }, 240_000);

  it("opencode: toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    const from = model.requests.length;
    const r = await runOpencode(gateway, "Find the echo tool and echo the phrase 'green-field-7'.");
    expect(r.calls).toEqual(["toolsearch_toolSearch", "toolsearch_callTool"]);
    expect(r.text).toContain("Echo: green-field-7");
    expect(stepsAfterSearch(from)).toEqual(["toolsearch_toolSearch", "toolsearch_callTool", "answer"]);
  }, 240_000);
});
