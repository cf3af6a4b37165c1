// The OpenAI Agents SDK's default model, OpenAIResponsesModel, pointed at /v1/responses by its base
// URL alone (no session header): the agent declares the 191 demo tools with its own `execute`; the
// Worker defers them, runs the model's searches in hidden rounds, and the SDK runs each call
// itself, over two user turns in one session, streaming and not. Then the SDK's own deferred-tool
// shapes: tools marked `deferLoading` and the hosted `toolSearchTool()`, answered by the Worker.
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool, toolSearchTool, type AgentInputItem } from "../clients/agents.ts";
import { KEY, names, sessionObjects, useAgentRig } from "./agent-rig.ts";
import { demoClientTools, expectDeferredConversation, type DemoTool } from "./sdk-rig.ts";

// tracing would export to OpenAI's servers
setTracingDisabled(true);
const rig = useAgentRig();
let declared: DemoTool[];
beforeAll(async () => {
  declared = await demoClientTools();
});

function agent(instructions: string, ran: string[], deferLoading?: boolean) {
  const client = new OpenAI({ baseURL: `${rig.dev.url}/v1`, apiKey: KEY });
  const tools = declared.map((t) => {
    const ft = tool({
      name: t.name,
      description: t.description,
      parameters: t.parameters as never,
      strict: false,
      ...(deferLoading ? { deferLoading: true } : {}),
      execute: async (): Promise<string> => (ran.push(ft.name), `ok from ${ft.name}`),
    });
    return ft;
  });
  return new Agent({
    name: "demo",
    instructions,
    model: new OpenAIResponsesModel(client, "gpt-4o"),
    tools: deferLoading ? [...tools, toolSearchTool()] : tools,
  });
}
// the SDK declares names with "_" for "-" (list-collections -> list_collections)
const sdkNamed = () => declared.map((t) => ({ ...t, name: t.name.replace(/-/g, "_") }));
const user = (content: string) => ({ role: "user", content }) as AgentInputItem;

describe("OpenAI Agents SDK, OpenAIResponsesModel, base URL only", () => {
  it("run: two turns, one session, deferred tools run by the SDK", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const a = agent("You are a helpful agent (responses run).", ran);
    const first = await run(a, "create an issue");
    expect(ran).toEqual(["create_issue"]);
    expect(first.finalOutput).toContain("Done with create_issue: ok from create_issue");
    const second = await run(a, [...first.history, user("read the graph")]);
    expect(ran).toEqual(["create_issue", "read_graph"]);
    expect(second.finalOutput).toContain("Done with read_graph");
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, sdkNamed(), ran);
  });

  it("run streaming: the same, streamed", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const a = agent("You are a helpful agent (responses run, streamed).", ran);
    const first = await run(a, "navigate the browser", { stream: true });
    let streamed = "";
    for await (const t of first.toTextStream()) streamed += t;
    await first.completed;
    expect(ran).toEqual(["browser_navigate"]);
    expect(streamed).toContain("Done with browser_navigate");
    const second = await run(a, [...first.history, user("list the collections")], { stream: true });
    for await (const _ of second.toStream());
    await second.completed;
    expect(second.finalOutput).toContain("Done with list_collections");
    expect(ran).toEqual(["browser_navigate", "list_collections"]);
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, sdkNamed(), ran);
  });

  it("the SDK's deferLoading tools and hosted toolSearchTool(): the Worker searches, the upstream sees neither", async () => {
    const ran: string[] = [];
    const a = agent("You are a helpful agent (deferLoading).", ran, true);
    const result = await run(a, "read the graph");
    expect(ran).toEqual(["read_graph"]);
    expect(result.finalOutput).toContain("Done with read_graph");
    // the SDK took the call because the output said which tools the search loaded
    expect(JSON.stringify(result.newItems)).toContain("tool_search_output");
    for (const r of rig.llm.requests) {
      expect(JSON.stringify(r.body.tools)).not.toMatch(/defer_loading|tool_search"/);
      expect(names(r)).toContain("toolSearch");
    }
  });
});
