// The AI SDK (`ai` + `@ai-sdk/openai` `.chat()`) pointed at the agent endpoint by its base URL
// alone: no custom fetch, no session header. The client declares the 191 demo tools with its own
// `execute`; the Worker defers them, loads what the model asks for, and the SDK's own tool loop
// runs each call and gets a final answer, over two user turns in one session.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, type ModelMessage } from "ai";
import { beforeAll, describe, expect, it } from "vitest";
import { KEY, sessionObjects, useAgentRig } from "./agent-rig.ts";
import { aiSdkTools, demoClientTools, expectDeferredConversation, type DemoTool } from "./sdk-rig.ts";

// the SDK warns, once per request, that it drops `propertyNames` from a demo schema
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
const rig = useAgentRig();
let declared: DemoTool[];
beforeAll(async () => {
  declared = await demoClientTools();
});

const sdkTools = (ran: string[]) => aiSdkTools(declared, ran);

const model = () => createOpenAI({ baseURL: `${rig.dev.url}/v1`, apiKey: KEY }).chat("gpt-4o");

describe("AI SDK, base URL only", () => {
  it("generateText with tools, execute and stopWhen: two turns, one session, deferred tools run by the SDK", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const tools = sdkTools(ran);
    const system = "You are a helpful agent (generateText).";
    const messages: ModelMessage[] = [{ role: "user", content: "create an issue" }];
    const first = await generateText({ model: model(), system, messages, tools, stopWhen: stepCountIs(5) });
    expect(ran).toEqual(["create_issue"]);
    expect(first.text).toContain("Done with create_issue: ok from create_issue");
    messages.push(...first.responseMessages, { role: "user", content: "read the graph" });
    const second = await generateText({ model: model(), system, messages, tools, stopWhen: stepCountIs(5) });
    expect(ran).toEqual(["create_issue", "read_graph"]);
    expect(second.text).toContain("Done with read_graph");
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, declared, ran);
  });

  it("streamText with tools, execute and stopWhen: the same, streamed", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const tools = sdkTools(ran);
    const system = "You are a helpful agent (streamText).";
    const messages: ModelMessage[] = [{ role: "user", content: "navigate the browser" }];
    const first = streamText({ model: model(), system, messages, tools, stopWhen: stepCountIs(5) });
    let streamed = "";
    for await (const t of first.textStream) streamed += t;
    expect(ran).toEqual(["browser_navigate"]);
    expect(streamed).toContain("Done with browser_navigate");
    messages.push(...(await first.responseMessages), { role: "user", content: "list the collections" });
    const second = streamText({ model: model(), system, messages, tools, stopWhen: stepCountIs(5) });
    expect(await second.text).toContain("Done with list-collections");
    expect(ran).toEqual(["browser_navigate", "list-collections"]);
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, declared, ran);
  });
});
