// MCP client libraries through the gateway's stable surface (toolSearch + callTool, the default on
// /mcp), as an app would use them: the AI SDK's own MCP client (`@ai-sdk/mcp` createMCPClient, its
// tools in `generateText`) and LangChain's MCP adapters (`@langchain/mcp-adapters`
// MultiServerMCPClient, its tools in a LangGraph ReAct agent; both run by mcp-client-libs.ts), each
// with its default settings, the gateway under `wrangler dev` (server-everything behind SERVERS),
// and the scripted agent model (calls toolSearch, then the found tool through callTool in the very
// next step, then answers).
// Neither library re-lists tools after a call; the stable surface needs no re-list. Pass = the
// server's answer reaches the final text, with no client-side workaround. And both libraries
// against a server that speaks only MCP 2026-07-28 (test/fixtures/mcp-2026-server.ts).
import { createMCPClient } from "@ai-sdk/mcp";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything, startModern } from "../fixtures/edge-servers.ts";
import { runAiSdk, runLangchain } from "../fixtures/mcp-client-libs.ts";
import { startScriptedAgentModel, type ScriptedAgentModel } from "../fixtures/scripted-agent-model.ts";
import { DEV_API_KEY, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";

let everything: { url: string; stop(): Promise<void> };
let dev: DevServer;
let model: ScriptedAgentModel;

beforeAll(async () => {
  everything = await startEverything();
  dev = await startWranglerDev({
    persistTo: await tempDir("toolsearch-mcp-clients-"),
    vars: { SERVERS: JSON.stringify({ everything: { url: everything.url } }) },
  });
  model = await startScriptedAgentModel();
}, 120_000);
afterAll(async () => {
  await dev?.stop();
  await everything?.stop();
  await model?.close();
});

const gateway = () => ({ url: `${dev.url}/mcp`, key: DEV_API_KEY, model: model.url });

/** The model's steps of one conversation, from its first toolSearch call to its answer. */
function stepsAfterSearch(from: number) {
  const steps = model.requests.slice(from).map((r) => ("call" in r.step ? r.step.call.name : "answer"));
  return steps.slice(steps.findIndex((s) => s.endsWith("toolSearch")));
}

describe("MCP client libraries through the gateway's stable surface", () => {
  it("AI SDK (@ai-sdk/mcp): toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    const from = model.requests.length;
    const r = await runAiSdk(gateway(), "Find the echo tool and echo the phrase 'red-kite-9'.");
    expect(r.offered).toEqual(["callTool", "toolSearch"]);
    expect(r.calls).toEqual(["toolSearch", "callTool"]);
    expect(r.text).toContain("Echo: red-kite-9");
    expect(stepsAfterSearch(from)).toEqual(["toolSearch", "callTool", "answer"]);
  });

  it("LangChain (@langchain/mcp-adapters): toolSearch, then callTool in the next step, and the server's answer in the final text", async () => {
    const from = model.requests.length;
    const r = await runLangchain(gateway(), "Find the echo tool and echo the phrase 'amber-gate-3'.");
    // with their default options, the adapters offered the server's own tool names
    expect(r.offered).toEqual(["callTool", "toolSearch"]);
    expect(r.calls).toEqual(["toolSearch", "callTool"]);
    expect(r.text).toContain("Echo: amber-gate-3");
    expect(stepsAfterSearch(from)).toEqual(["toolSearch", "callTool", "answer"]);
  });

  it("against a server that speaks only MCP 2026-07-28: the AI SDK's client works, LangChain's adapters (v1 SDK) are refused", async () => {
    const modern = await startModern();
    try {
      const ai = await createMCPClient({ transport: { type: "http", url: modern.url } });
      const tools = await ai.tools();
      expect(Object.keys(tools).sort()).toEqual(["add", "echo", "slow"]);
      const r = (await tools.echo!.execute!({ message: "modern" }, { toolCallId: "t1", messages: [], context: {} })) as {
        content: unknown;
      };
      expect(r.content).toEqual([{ type: "text", text: "Echo: modern" }]);
      await ai.close();
      const { requests } = (await (await fetch(`${modern.base}/_control/stats`)).json()) as { requests: Array<Record<string, unknown>> };
      expect(requests.map((q) => [q.method, q.protocol])).toEqual([
        ["server/discover", "2026-07-28"],
        ["tools/list", "2026-07-28"],
        ["tools/call", "2026-07-28"],
      ]);
      const lc = new MultiServerMCPClient({ mcpServers: { modern: { transport: "http", url: modern.url } } });
      await expect(lc.getTools()).rejects.toThrow(/-32022.*Unsupported protocol version: 2025-11-25/);
      await lc.close();
    } finally {
      await modern.stop();
    }
  });
});
