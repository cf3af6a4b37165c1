// The Responses API (POST /v1/responses) with the real `openai` client against the Worker in
// workerd and the scripted Chat Completions upstream (agent-rig.ts): the 191 demo tools declared
// as the client's own function tools, or grouped in namespaces as Codex sends MCP servers, are
// deferred; the model's search rounds stay hidden; the client gets its own call, named in its own
// form, runs it, and gets the answer. previous_response_id carries the conversation, so a client
// sends only its new input, and the upstream still sees each request extend the previous one.
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { deferredNames } from "../fixtures/scripted-model.ts";
import { AUTH, expectAppendOnly, names, useAgentRig, type Json } from "./agent-rig.ts";
import { demoClientTools, expectDeferredConversation, type DemoTool } from "./sdk-rig.ts";

type Tool = OpenAI.Responses.FunctionTool;
type Call = OpenAI.Responses.ResponseFunctionToolCall;
const rig = useAgentRig();
let declared: DemoTool[];
let tools: Tool[];
beforeAll(async () => {
  declared = await demoClientTools();
  tools = declared.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters, strict: false }));
});

const calls = (r: OpenAI.Responses.Response) => r.output.filter((o): o is Call => o.type === "function_call");
const output = (c: Call, text = `ok from ${c.name}`) => ({ type: "function_call_output" as const, call_id: c.call_id, output: text });

describe("responses.create", () => {
  it("a deferred tool is loaded in a hidden round; previous_response_id carries the conversation over two turns", async () => {
    const instructions = "You are a helpful agent (responses.create).";
    const first = await rig.client.responses.create({ model: "gpt-4o", instructions, input: "create an issue", tools });
    expect(first.status).toBe("completed");
    const [call] = calls(first);
    expect(call!.name).toBe("create_issue");
    expect(first.usage!.input_tokens).toBeGreaterThan(0);
    expect(first.usage!.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    const answered = await rig.client.responses.create({
      model: "gpt-4o",
      instructions,
      previous_response_id: first.id,
      input: [output(call!)],
      tools,
    });
    expect(answered.output_text).toContain("Done with create_issue: ok from create_issue");
    const second = await rig.client.responses.create({
      model: "gpt-4o",
      instructions,
      previous_response_id: answered.id,
      input: "read the graph",
      tools,
    });
    const [read] = calls(second);
    expect(read!.name).toBe("read_graph");
    const done = await rig.client.responses.create({
      model: "gpt-4o",
      instructions,
      previous_response_id: second.id,
      input: [output(read!)],
      tools,
    });
    expect(done.output_text).toContain("Done with read_graph");
    expectDeferredConversation(rig.llm.requests, declared, ["create_issue", "read_graph"]);
    // the stored response answers GET as it was answered
    expect((await rig.client.responses.retrieve(first.id)).output).toEqual(first.output);
  });

  it("a stateless client replaying every item reaches the same session and the same upstream bytes", async () => {
    const instructions = "You are a helpful agent (stateless).";
    const first = await rig.client.responses.create({ model: "gpt-4o", instructions, input: "navigate the browser", tools, store: false });
    const [call] = calls(first);
    const history: OpenAI.Responses.ResponseInputItem[] = [
      { role: "user", content: "navigate the browser" },
      ...calls(first),
      output(call!),
    ];
    const { data: done, response } = await rig.client.responses
      .create({ model: "gpt-4o", instructions, input: history, tools, store: false })
      .withResponse();
    expect(done.output_text).toContain("Done with browser_navigate");
    expect(response.headers.get("x-toolsearch-spliced")).toBe("1");
    expectAppendOnly(rig.llm.requests);
    await expect(rig.client.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("responses.stream", () => {
  it("the SDK's stream helper gets text deltas, the function call and the completed response", async () => {
    const instructions = "You are a helpful agent (responses.stream).";
    const stream = rig.client.responses.stream({ model: "gpt-4o", instructions, input: "[preamble] list the collections", tools });
    const types: string[] = [];
    let text = "";
    for await (const e of stream) {
      types.push(e.type);
      if (e.type === "response.output_text.delta") text += e.delta;
    }
    const first = await stream.finalResponse();
    expect(text).toContain("Let me find the right tool.");
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.function_call_arguments.done");
    expect(types.at(-1)).toBe("response.completed");
    const [call] = calls(first);
    expect(call!.name).toBe("list-collections");
    const next = rig.client.responses.stream({
      model: "gpt-4o",
      instructions,
      previous_response_id: first.id,
      input: [output(call!)],
      tools,
    });
    const done = await next.finalResponse();
    expect(done.output_text).toContain("Done with list-collections");
    expect(done.previous_response_id).toBe(first.id);
    expectAppendOnly(rig.llm.requests);
  });
});

describe("namespace tools (Codex's MCP servers) and OpenAI's deferred-tool shapes", () => {
  it("a namespace's functions are deferred and the call comes back with its namespace and name", async () => {
    const ns: OpenAI.Responses.NamespaceTool = {
      type: "namespace",
      name: "mcp__demo__",
      description: "The demo tools",
      tools: declared.map((t) => ({
        type: "function",
        name: t.name.replace(/-/g, "_"),
        description: t.description,
        parameters: t.parameters,
      })),
    };
    const r = await rig.client.responses.create({ model: "gpt-4o", input: "read the demo graph", tools: [ns] });
    const [call] = calls(r);
    expect([call!.namespace, call!.name]).toEqual(["mcp__demo__", "read_graph"]);
    const system = String(rig.llm.requests[0]!.body.messages[0]!.content);
    expect(deferredNames(system)).toContain("mcp__demo__read_graph");
    const done = await rig.client.responses.create({ model: "gpt-4o", previous_response_id: r.id, input: [output(call!)], tools: [ns] });
    expect(done.output_text).toContain("Done with mcp__demo__read_graph");
  });

  it("defer_loading decides what is deferred; a hosted tool_search is the Worker's; the upstream sees neither", async () => {
    const few: Tool[] = tools.slice(0, 3).map((t, i) => ({ ...t, defer_loading: i > 0 }));
    const r = await rig.client.responses.create({
      model: "gpt-4o",
      instructions: "Few tools.",
      input: "hello",
      tools: [...few, { type: "tool_search" }],
    });
    expect(r.status).toBe("completed");
    const sent = rig.llm.requests[0]!.body;
    // the client's kept tool first, then the session's (the demo profile's core tool, toolSearch)
    expect(names(rig.llm.requests[0]!)).toEqual([few[0]!.name, "mcp__memory__search_nodes", "toolSearch"]);
    expect(JSON.stringify(sent.tools)).not.toContain("defer_loading");
    expect(JSON.stringify(sent.tools)).not.toContain("tool_search");
    const listed = deferredNames(String(sent.messages[0]!.content));
    expect(listed).toEqual(expect.arrayContaining([few[1]!.name, few[2]!.name]));
    expect(listed).not.toContain(few[0]!.name);
  });

  it("chat completions honours defer_loading with the openai client", async () => {
    const chatTools = declared.slice(0, 3).map((t, i) => ({ type: "function" as const, function: t, defer_loading: i > 0 }));
    const { data, response } = await rig.client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }], tools: chatTools as OpenAI.ChatCompletionTool[] })
      .withResponse();
    expect(data.choices[0]!.finish_reason).toBeTruthy();
    expect(response.headers.get("x-toolsearch-session")).toBeTruthy();
    const sent = rig.llm.requests[0]!;
    expect(names(sent)).toEqual([declared[0]!.name, "mcp__memory__search_nodes", "toolSearch"]);
    expect(deferredNames(String(sent.body.messages[0]!.content))).toEqual(expect.arrayContaining([declared[1]!.name, declared[2]!.name]));
    expect(JSON.stringify(sent.body.tools)).not.toContain("defer_loading");
  });
});

describe("bad input in OpenAI's error shape", () => {
  const post = async (body: unknown) => {
    const res = await fetch(`${rig.dev.url}/v1/responses`, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it("names the field: an unknown item type, an output with no call, an unknown previous_response_id", async () => {
    const unknown = await post({ model: "gpt-4o", input: [{ type: "web_search_call", id: "ws_1" }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: "invalid_request_error", param: "input.0.type", code: "bad_request" });
    const orphan = await post({ model: "gpt-4o", input: [{ type: "function_call_output", call_id: "call_x", output: "hi" }] });
    expect([orphan.status, orphan.body.error.param]).toEqual([400, "input.0.call_id"]);
    const missing = await post({ model: "gpt-4o", input: "hi", previous_response_id: "resp_nope" });
    expect([missing.status, missing.body.error.param]).toEqual([400, "previous_response_id"]);
    expect(rig.llm.requests).toHaveLength(0);
  });
});
