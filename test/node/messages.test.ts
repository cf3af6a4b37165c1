// /v1/messages with the real `@anthropic-ai/sdk` and `@ai-sdk/anthropic` against the Worker in
// workerd and the scripted Chat Completions upstream (agent-rig.ts): the 191 demo tools deferred,
// search rounds hidden, the client runs its own call. Claude Code is not installable here
// (proprietary): its wire shapes (platform-notes 5d) are replayed with the Anthropic SDK. The bm25
// and regex server tools are answered by the Worker. Every recorded upstream request is checked:
// nothing Anthropic-specific reaches it, names only until loaded, each extends the last.
import Anthropic from "@anthropic-ai/sdk";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, stepCountIs, streamText, type ModelMessage } from "ai";
import { beforeAll, describe, expect, it } from "vitest";
import { expectAppendOnly, KEY, names, sessionObjects, useAgentRig } from "./agent-rig.ts";
import { aiSdkTools, demoClientTools, expectChatOnly, expectDeferredConversation, type DemoTool } from "./sdk-rig.ts";

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
type Param = Anthropic.MessageParam;
type Use = Anthropic.ToolUseBlock;
const rig = useAgentRig();
let declared: DemoTool[];
let client: Anthropic;
const toolsOf = (defer?: boolean): Anthropic.Tool[] =>
  declared.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.parameters as Anthropic.Tool.InputSchema,
    ...(defer ? { defer_loading: true } : {}),
  }));
beforeAll(async () => {
  declared = await demoClientTools();
  client = new Anthropic({ baseURL: rig.dev.url, apiKey: KEY, maxRetries: 0 });
});

const uses = (m: Anthropic.Message) => m.content.filter((b): b is Use => b.type === "tool_use");
const textOf = (m: Anthropic.Message) => m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
const answer = (u: Use, text = `ok from ${u.name}`): Param => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: u.id, content: text }],
});

describe("@anthropic-ai/sdk, base URL only", () => {
  it("messages.create in a tool loop with the 191 demo tools: deferred, loaded in a hidden round, two turns, one session", async () => {
    const before = await sessionObjects(rig);
    const system = "You are a helpful agent (messages.create).";
    const tools = toolsOf();
    const messages: Param[] = [{ role: "user", content: "create an issue" }];
    const first = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    expect(first.stop_reason).toBe("tool_use");
    const [call] = uses(first);
    expect(call!.name).toBe("create_issue");
    expect(first.usage.input_tokens).toBeGreaterThan(0);
    messages.push({ role: "assistant", content: first.content }, answer(call!));
    const done = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    expect(textOf(done)).toContain("Done with create_issue: ok from create_issue");
    expect(done.stop_reason).toBe("end_turn");
    expect(done.usage.cache_read_input_tokens).toBeGreaterThan(0);
    messages.push({ role: "assistant", content: done.content }, { role: "user", content: "read the graph" });
    const second = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    const [read] = uses(second);
    expect(read!.name).toBe("read_graph");
    expect((await sessionObjects(rig)) - before).toBe(1);
    expectDeferredConversation(rig.llm.requests, declared, ["create_issue", "read_graph"]);
    expectChatOnly(rig.llm.requests);
  });

  it("messages.stream: the SDK's stream helper gets text deltas, the tool_use block and the final message", async () => {
    const system = "You are a helpful agent (messages.stream).";
    const tools = toolsOf();
    const messages: Param[] = [{ role: "user", content: "[preamble] list the collections" }];
    const stream = client.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    let text = "";
    const types: string[] = [];
    stream.on("text", (t) => (text += t));
    stream.on("streamEvent", (e) => types.push(e.type));
    const first = await stream.finalMessage();
    expect(text).toContain("Let me find the right tool.");
    expect(types[0]).toBe("message_start");
    expect(types).toContain("content_block_delta");
    expect(types.at(-1)).toBe("message_stop");
    const [call] = uses(first);
    expect(call!.name).toBe("list-collections");
    expect(call!.input).toEqual(expect.any(Object));
    messages.push({ role: "assistant", content: first.content }, answer(call!));
    const done = await client.messages.stream({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools }).finalMessage();
    expect(textOf(done)).toContain("Done with list-collections");
    expectAppendOnly(rig.llm.requests);
    expectChatOnly(rig.llm.requests);
  });
});

describe("Claude Code's shapes, replayed (its own ToolSearch; defer_loading; the placeholder)", () => {
  const builtin: Anthropic.Tool[] = [
    {
      name: "Bash",
      description: "Run a shell command",
      input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
    {
      name: "ToolSearch",
      description: "Load deferred tools by name (select:<name>) or keywords",
      input_schema: { type: "object", properties: { query: { type: "string" }, max_results: { type: "number" } }, required: ["query"] },
    },
  ];
  const placeholder: Anthropic.Tool = {
    name: "DeferredToolPlaceholder",
    description: "Placeholder",
    input_schema: { type: "object", properties: {} },
    defer_loading: true,
  };
  const mcp = (name: string): Anthropic.Tool => {
    const t = declared.find((d) => `mcp__${d.name}` === name || d.name === name.split("__")[2])!;
    return { name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema, defer_loading: true };
  };
  const reminder =
    "<system-reminder>\nThe following deferred tools are available via ToolSearch:\nmcp__everything__echo\nmcp__github__create_issue\n</system-reminder>";

  it("ToolSearch -> tool_reference -> call -> answer: the tool joins the upstream's tools at the end, no second search, one session", async () => {
    const before = await sessionObjects(rig);
    const metadata = { user_id: JSON.stringify({ device_id: "dev", account_uuid: "", session_id: "cc-replay-1" }) };
    const betas = ["claude-code-20250219", "advanced-tool-use-2025-11-20"];
    const system = [{ type: "text" as const, text: "You are Claude Code.", cache_control: { type: "ephemeral" as const } }];
    const messages: Anthropic.Beta.BetaMessageParam[] = [
      {
        role: "user",
        content: [
          { type: "text", text: reminder },
          { type: "text", text: "echo a message with everything" },
        ],
      },
    ];
    const send = (tools: Anthropic.Tool[]) =>
      client.beta.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools, metadata, betas });
    const first = await send([...builtin, placeholder]);
    const [search] = first.content.filter((b) => b.type === "tool_use");
    expect(search).toMatchObject({ name: "ToolSearch", input: { query: "select:mcp__everything__echo" } });
    messages.push(
      { role: "assistant", content: first.content as Anthropic.Beta.BetaContentBlockParam[] },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: search!.id, content: [{ type: "tool_reference", tool_name: "mcp__everything__echo" }] },
        ],
      },
    );
    // loaded tools appear in tools marked defer_loading; one never referenced stays out of the upstream
    const loadedTools = [...builtin, mcp("mcp__github__create_issue"), mcp("mcp__everything__echo"), placeholder];
    const second = await send(loadedTools);
    const [echo] = second.content.filter((b) => b.type === "tool_use");
    expect(echo).toMatchObject({ name: "mcp__everything__echo" });
    messages.push(
      { role: "assistant", content: second.content as Anthropic.Beta.BetaContentBlockParam[] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: echo!.id, content: "Echo: hello" }] },
    );
    const done = await send(loadedTools);
    expect(done.content.find((b) => b.type === "text")).toMatchObject({ text: expect.stringContaining("Done with mcp__everything__echo") });
    const reqs = rig.llm.requests;
    expect(reqs.map(names)).toEqual([
      ["Bash", "ToolSearch"],
      ["Bash", "ToolSearch", "mcp__everything__echo"],
      ["Bash", "ToolSearch", "mcp__everything__echo"],
    ]);
    // no catalog listing, no toolSearch of the Worker's: the client's search is the only one
    for (const r of reqs) expect(JSON.stringify(r.body.messages)).not.toContain("# Deferred tools");
    expectChatOnly(reqs);
    expectAppendOnly(reqs);
    expect((await sessionObjects(rig)) - before).toBe(1);
  });
});

describe("Anthropic's tool search server tools, answered by the Worker's search", () => {
  it("tool_search_tool_bm25: server_tool_use + tool_search_tool_result referencing the tool, then its tool_use", async () => {
    const tools: Anthropic.ToolUnion[] = [{ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" }, ...toolsOf(true)];
    const system = "You are a helpful agent (bm25).";
    const messages: Param[] = [{ role: "user", content: "navigate the browser" }];
    const first = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    expect(first.content.map((b) => b.type)).toEqual(["server_tool_use", "tool_search_tool_result", "tool_use"]);
    expect(first.content[0]).toMatchObject({ name: "tool_search_tool_bm25" });
    expect(first.content[1]).toMatchObject({
      content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "browser_navigate" }] },
    });
    const [call] = uses(first);
    messages.push({ role: "assistant", content: first.content }, answer(call!));
    const done = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    expect(textOf(done)).toContain("Done with browser_navigate");
    expectDeferredConversation(rig.llm.requests, declared, ["browser_navigate"]);
    expectChatOnly(rig.llm.requests);
  });

  it("tool_search_tool_regex: a Python-style pattern loads the matching tools; a bad pattern is invalid_pattern", async () => {
    const tools: Anthropic.ToolUnion[] = [{ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }, ...toolsOf(true)];
    const system = "You are a helpful agent (regex).";
    const messages: Param[] = [{ role: "user", content: "[regex (?i)^READ_GRA] read the graph" }];
    const first = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    expect(first.content.map((b) => b.type)).toEqual(["server_tool_use", "tool_search_tool_result", "tool_use"]);
    expect(first.content[0]).toMatchObject({ name: "tool_search_tool_regex", input: { pattern: "(?i)^READ_GRA" } });
    expect(first.content[1]).toMatchObject({ content: { tool_references: [{ tool_name: "read_graph" }] } });
    expect(uses(first)[0]!.name).toBe("read_graph");
    // the upstream got read_graph's schema only after the search, appended
    expect(names(rig.llm.requests[0]!)).not.toContain("read_graph");
    expect(names(rig.llm.requests.at(-1)!).at(-1)).toBe("read_graph");
    const bad = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 1024,
      system: "You are a helpful agent (regex, bad).",
      messages: [{ role: "user", content: "[regex (a+)(?=b)] anything" }],
      tools,
    });
    expect(bad.content.find((b) => b.type === "tool_search_tool_result")).toMatchObject({
      type: "tool_search_tool_result",
      content: { type: "tool_search_tool_result_error", error_code: "invalid_pattern" },
    });
    expectChatOnly(rig.llm.requests);
  });
});

describe("@ai-sdk/anthropic, base URL only", () => {
  const model = () => createAnthropic({ baseURL: `${rig.dev.url}/v1`, apiKey: KEY })("claude-sonnet-4-6");
  const sdkTools = (ran: string[]) => aiSdkTools(declared, ran);

  it("generateText and streamText with the 191 tools and execute: deferred tools run by the SDK, one session each", async () => {
    const before = await sessionObjects(rig);
    const ran: string[] = [];
    const tools = sdkTools(ran);
    const messages: ModelMessage[] = [{ role: "user", content: "create an issue" }];
    const first = await generateText({
      model: model(),
      system: "You are a helpful agent (ai-sdk).",
      messages,
      tools,
      stopWhen: stepCountIs(5),
    });
    expect(ran).toEqual(["create_issue"]);
    expect(first.text).toContain("Done with create_issue: ok from create_issue");
    expectDeferredConversation(rig.llm.requests, declared, ran);
    rig.llm.reset();
    const streamed = streamText({
      model: model(),
      system: "You are a helpful agent (ai-sdk stream).",
      messages: [{ role: "user", content: "navigate the browser" }],
      tools,
      stopWhen: stepCountIs(5),
    });
    let text = "";
    for await (const t of streamed.textStream) text += t;
    expect(ran).toEqual(["create_issue", "browser_navigate"]);
    expect(text).toContain("Done with browser_navigate");
    expect((await sessionObjects(rig)) - before).toBe(2);
    expectDeferredConversation(rig.llm.requests, declared, ["browser_navigate"]);
    expectChatOnly(rig.llm.requests);
  });
});
