// LangChain (`@langchain/openai` ChatOpenAI) pointed at the agent endpoint by its base URL alone:
// no custom fetch, no session header. The model is bound to the 191 demo tools (`bindTools`);
// `invoke` and `stream` answer with calls to them, which LangChain's own tools run, over two
// user turns in one session.
import { AIMessageChunk, HumanMessage, SystemMessage, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { ChatOpenAI } from "@langchain/openai";
import { beforeAll, describe, expect, it } from "vitest";
import { KEY, sessionObjects, useAgentRig } from "./agent-rig.ts";
import { demoClientTools, expectDeferredConversation, type DemoTool } from "./sdk-rig.ts";

const rig = useAgentRig();
let declared: DemoTool[];
beforeAll(async () => {
  declared = await demoClientTools();
});

function setup(ran: string[]) {
  const tools = declared.map((t) =>
    tool(async () => (ran.push(t.name), `ok from ${t.name}`), { name: t.name, description: t.description, schema: t.parameters }),
  );
  const model = new ChatOpenAI({ model: "gpt-4o", apiKey: KEY, configuration: { baseURL: `${rig.dev.url}/v1` } }).bindTools(tools);
  return { model, byName: new Map<string, StructuredToolInterface>(tools.map((t) => [t.name, t])) };
}

/** One user turn: the model's calls run with LangChain's tools until it answers. */
async function turn(
  step: (messages: BaseMessage[]) => Promise<AIMessage>,
  byName: Map<string, StructuredToolInterface>,
  messages: BaseMessage[],
): Promise<string> {
  for (let i = 0; i < 5; i++) {
    const reply = await step(messages);
    messages.push(reply);
    if (!reply.tool_calls?.length) return String(reply.content);
    for (const call of reply.tool_calls) messages.push(await byName.get(call.name)!.invoke(call));
  }
  throw new Error("no answer after 5 steps");
}

describe("LangChain, base URL only", () => {
  it("bindTools + invoke: two turns, one session, deferred tools run by LangChain", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const { model, byName } = setup(ran);
    const invoke = (m: BaseMessage[]) => model.invoke(m);
    const messages: BaseMessage[] = [new SystemMessage("You are a helpful agent (invoke)."), new HumanMessage("create an issue")];
    expect(await turn(invoke, byName, messages)).toContain("Done with create_issue: ok from create_issue");
    messages.push(new HumanMessage("read the graph"));
    expect(await turn(invoke, byName, messages)).toContain("Done with read_graph");
    expect(ran).toEqual(["create_issue", "read_graph"]);
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, declared, ran);
  });

  it("bindTools + stream: the same, streamed", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const { model, byName } = setup(ran);
    const stream = async (m: BaseMessage[]) => {
      let whole: AIMessageChunk | undefined;
      for await (const chunk of await model.stream(m)) whole = whole ? whole.concat(chunk) : chunk;
      return whole!;
    };
    const messages: BaseMessage[] = [new SystemMessage("You are a helpful agent (stream)."), new HumanMessage("navigate the browser")];
    expect(await turn(stream, byName, messages)).toContain("Done with browser_navigate");
    messages.push(new HumanMessage("list the collections"));
    expect(await turn(stream, byName, messages)).toContain("Done with list-collections");
    expect(ran).toEqual(["browser_navigate", "list-collections"]);
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, declared, ran);
  });
});
