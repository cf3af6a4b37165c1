// The OpenAI Agents SDK (`run` with OpenAIChatCompletionsModel) pointed at the agent endpoint by
// its base URL alone: no custom fetch, no session header (the SDK exposes no response headers
// anyway). The agent declares the 191 demo tools with its own `execute`; the Worker defers them
// and loads what the model asks for; the SDK runs each call itself (it refuses calls to tools it
// did not declare) and gets a final answer, over two user turns in one session.
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { Agent, OpenAIChatCompletionsModel, run, setTracingDisabled, tool, type AgentInputItem } from "../clients/agents.ts";
import { KEY, sessionObjects, useAgentRig } from "./agent-rig.ts";
import { demoClientTools, expectDeferredConversation, type DemoTool } from "./sdk-rig.ts";

// tracing would export to OpenAI's servers
setTracingDisabled(true);
const rig = useAgentRig();
let declared: DemoTool[];
beforeAll(async () => {
  declared = await demoClientTools();
});

function agent(instructions: string, ran: string[]) {
  const client = new OpenAI({ baseURL: `${rig.dev.url}/v1`, apiKey: KEY });
  const tools = declared.map((t) => {
    // the demo schemas are plain JSON Schema, not OpenAI strict-mode schemas; the SDK declares
    // names with "_" for "-" (list-collections -> list_collections)
    const ft = tool({
      name: t.name,
      description: t.description,
      parameters: t.parameters as never,
      strict: false,
      execute: async (): Promise<string> => (ran.push(ft.name), `ok from ${ft.name}`),
    });
    return ft;
  });
  return new Agent({ name: "demo", instructions, model: new OpenAIChatCompletionsModel(client, "gpt-4o"), tools });
}

describe("OpenAI Agents SDK, base URL only", () => {
  it("run: two turns, one session, deferred tools run by the SDK", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const a = agent("You are a helpful agent (run).", ran);
    const first = await run(a, "create an issue");
    expect(ran).toEqual(["create_issue"]);
    expect(first.finalOutput).toContain("Done with create_issue: ok from create_issue");
    const second = await run(a, [...first.history, { role: "user", content: "read the graph" } as AgentInputItem]);
    expect(ran).toEqual(["create_issue", "read_graph"]);
    expect(second.finalOutput).toContain("Done with read_graph");
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, a.tools, ran);
  });

  it("run streaming: the same, streamed", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const a = agent("You are a helpful agent (run, streamed).", ran);
    const first = await run(a, "navigate the browser", { stream: true });
    let streamed = "";
    for await (const t of first.toTextStream()) streamed += t;
    await first.completed;
    expect(ran).toEqual(["browser_navigate"]);
    expect(streamed).toContain("Done with browser_navigate");
    const second = await run(a, [...first.history, { role: "user", content: "list the collections" } as AgentInputItem], { stream: true });
    for await (const _ of second.toStream());
    await second.completed;
    expect(second.finalOutput).toContain("Done with list_collections");
    expect(ran).toEqual(["browser_navigate", "list_collections"]);
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, a.tools, ran);
  });
});
