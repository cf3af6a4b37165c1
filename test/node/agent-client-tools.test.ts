// Tools the client declares, through the agent endpoint with the real `openai` client (agent-rig.ts):
// named sessions replan once when the tool set changes; conversations that begin alike share a
// derived session harmlessly; x-toolsearch-core keeps tools loaded; a client tool wins a catalog
// tool's name; hidden-round text reaches a client that does not stream; proxy mode; 2,000 tools.
import OpenAI from "openai";
import { beforeAll, describe, expect, it } from "vitest";
import { deferredNames } from "../fixtures/scripted-model.ts";
import { ask, AUTH, expectAppendOnly, names, toolResult, useAgentRig, type Json, type Msg } from "./agent-rig.ts";
import { demoClientTools } from "./sdk-rig.ts";

type Tool = OpenAI.ChatCompletionFunctionTool;
type Call = OpenAI.ChatCompletionMessageFunctionToolCall;
const rig = useAgentRig();
let tools: Tool[];
beforeAll(async () => {
  tools = (await demoClientTools()).map((t) => ({ type: "function", function: t }));
});

const systemOf = (i: number) => String(rig.llm.requests[i]!.body.messages[0]!.content);
const callOf = (m: OpenAI.ChatCompletionMessage) => m.tool_calls![0] as Call;
const hidden = (i: number) => rig.llm.requests[i]!.body.messages.filter((m) => m.role === "tool" && String(m.content).startsWith("Loaded"));

describe("sessions without a session header", () => {
  it("prompt_cache_key names the session; a changed tool set is planned again once (x-toolsearch-tools-changed)", async () => {
    const key = { prompt_cache_key: "conversation-7" };
    const a = await ask(rig, [{ role: "user", content: "create an issue" }], undefined, {}, { tools, ...key });
    expect(a.toolsChanged).toBe("0");
    expect(callOf(a.message).function.name).toBe("create_issue");
    expect(rig.llm.requests[0]!.body.prompt_cache_key).toBe("conversation-7");
    const more: Tool[] = [
      ...tools,
      {
        type: "function",
        function: {
          name: "lookup_weather_forecast",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ];
    rig.llm.reset();
    const b = await ask(
      rig,
      [
        { role: "system", content: "Another beginning." },
        { role: "user", content: "read the graph" },
      ],
      undefined,
      {},
      { tools: more, ...key },
    );
    expect([b.session, b.toolsChanged]).toEqual([a.session, "1"]);
    expect(deferredNames(systemOf(0))).toContain("lookup_weather_forecast");
    const c = await ask(rig, [{ role: "user", content: "navigate the browser" }], undefined, {}, { tools: more, ...key });
    expect([c.session, c.toolsChanged]).toEqual([a.session, "0"]);
    // the header names the session too: back to the first tool set, planned again once
    const d = await ask(rig, [{ role: "user", content: "read the graph" }], a.session, {}, { tools });
    expect([d.session, d.toolsChanged]).toEqual([a.session, "1"]);
  });

  it("one tools array gives the same deferred section and the same tools prefix in two sessions", async () => {
    const one = await ask(
      rig,
      [
        { role: "system", content: "First." },
        { role: "user", content: "read the graph" },
      ],
      undefined,
      {},
      { tools },
    );
    const two = await ask(
      rig,
      [
        { role: "system", content: "Second." },
        { role: "user", content: "read the graph" },
      ],
      undefined,
      {},
      { tools },
    );
    expect(two.session).not.toBe(one.session);
    const [a, b] = [rig.llm.requests[0]!, rig.llm.requests[2]!];
    expect(String(b.body.messages[0]!.content).replace(/^Second\./, "")).toBe(String(a.body.messages[0]!.content).replace(/^First\./, ""));
    expect(JSON.stringify(b.body.tools)).toBe(JSON.stringify(a.body.tools));
  });

  it("conversations that begin with the same messages share a session: activations add up, splices stay with their history", async () => {
    const start: Msg[] = [
      { role: "system", content: "Shared beginning." },
      { role: "user", content: "read the graph" },
    ];
    const a = await ask(rig, start, undefined, {}, { tools });
    expect(a.hops).toBe(2); // toolSearch, then the call
    const b = await ask(rig, start, undefined, {}, { tools });
    expect(b.session).toBe(a.session);
    expect(b.hops).toBe(1); // read_graph is loaded in the session already
    const other = await ask(rig, start, undefined, {}, { tools: tools.slice(1) });
    expect(other.session).not.toBe(a.session);
    // each conversation goes on with its own history; only A's gets A's hidden round back
    for (const [r, spliced] of [
      [a, 1],
      [b, 0],
    ] as const) {
      rig.llm.reset();
      const next = await ask(rig, [...start, r.message as Msg, toolResult(callOf(r.message).id, "graph: empty")], undefined, {}, { tools });
      expect(next.session).toBe(a.session);
      expect(next.spliced).toBe(spliced);
      expect(hidden(0)).toHaveLength(spliced);
      expect(next.message.content).toContain("Done with read_graph");
    }
  });
});

describe("what stays loaded, and whose tool it is", () => {
  it("keeps the names in x-toolsearch-core in tools, in the client's order, and does not list them", async () => {
    const r = await ask(
      rig,
      [{ role: "user", content: "read the graph, core" }],
      undefined,
      { "x-toolsearch-core": "read_graph, create_issue" },
      { tools },
    );
    expect(r.hops).toBe(1);
    expect(callOf(r.message).function.name).toBe("read_graph");
    expect(names(rig.llm.requests[0]!).slice(0, 2)).toEqual(["create_issue", "read_graph"]);
    expect(deferredNames(systemOf(0))).not.toContain("read_graph");
    expect(deferredNames(systemOf(0))).toContain("read_text_file");
    // the session says what it planned
    const state = (await (await fetch(`${rig.dev.url}/v1/sessions/${r.session}`, { headers: AUTH })).json()) as Json;
    expect(state.clientTools).toMatchObject({ kept: ["create_issue", "read_graph"], core: ["create_issue", "read_graph"], deferred: 189 });
    expect(state.clientTools.reason).toMatch(/^189 of 191 client tools deferred: /);
  });

  it("loads a deferred tool that tool_choice forces before the model is called", async () => {
    const choice = { type: "function" as const, function: { name: "read_graph" } };
    const r = await ask(rig, [{ role: "user", content: "read the graph, forced" }], undefined, {}, { tools, tool_choice: choice });
    expect(r.hops).toBe(1);
    expect(callOf(r.message).function.name).toBe("read_graph");
    expect(names(rig.llm.requests[0]!).at(-1)).toBe("read_graph");
    expect(rig.llm.requests[0]!.body.tool_choice).toEqual(choice);
  });

  it("a client tool named like a catalog tool wins: its schema bytes go upstream and its arguments are checked", async () => {
    const mine: Tool = {
      type: "function",
      function: {
        name: "mcp__github__create_issue",
        description: "File it in OUR tracker",
        parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
        strict: false,
      },
    };
    const declared = [...tools.filter((t) => t.function.name !== "create_issue"), mine];
    const r = await ask(rig, [{ role: "user", content: "create an issue on github" }], undefined, {}, { tools: declared });
    expect(callOf(r.message).function).toEqual({ name: "mcp__github__create_issue", arguments: '{"summary":"example"}' });
    expect(rig.llm.requests[1]!.body.tools!.at(-1)).toEqual(mine);
  });
});

describe("hidden rounds and proxy mode", () => {
  it("gives a client that does not stream the text the model said before its toolSearch round", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue [preamble]" }];
    const r = await ask(rig, messages, undefined, {}, { tools });
    expect(r.hops).toBe(2);
    expect(r.message.content).toBe("Let me find the right tool. ");
    expect(callOf(r.message).function.name).toBe("create_issue");
    const next = await ask(rig, [...messages, r.message as Msg, toolResult(callOf(r.message).id, "filed")], undefined, {}, { tools });
    expect(next.spliced).toBe(1);
    expectAppendOnly(rig.llm.requests);
  });

  it("proxy: the upstream tools never change, toolSearch carries the client's schema, the client gets a call to its own tool", async () => {
    const r = await ask(
      rig,
      [{ role: "user", content: "create an issue, by proxy" }],
      undefined,
      { "x-toolsearch-activation": "proxy" },
      { tools },
    );
    expect(callOf(r.message).function).toEqual({
      name: "create_issue",
      arguments: JSON.stringify({ owner: "example", repo: "example", title: "example" }),
    });
    expect(String(rig.llm.requests[1]!.body.messages.at(-1)!.content)).toContain('\n{"name":"create_issue","description":');
    expect(rig.llm.requests[1]!.reply!.tool_calls![0]!.function.name).toBe("callTool");
    expect(new Set(rig.llm.requests.map((q) => JSON.stringify(q.body.tools))).size).toBe(1);
    expect(names(rig.llm.requests[0]!)).toEqual(["mcp__memory__search_nodes", "toolSearch", "callTool"]);
  });
});

describe("2,000 client tools", () => {
  it("are accepted in one request under 4 MiB and deferred, also when the catalog itself is loaded in full", async () => {
    const many: Tool[] = Array.from({ length: 2000 }, (_, i) => {
      const t = tools[i % tools.length]!.function;
      return {
        type: "function",
        function: { ...t, name: i < tools.length ? t.name : `${t.name.slice(0, 58)}_${Math.floor(i / tools.length) + 1}` },
      };
    });
    const body = JSON.stringify({ model: "gpt-4.1", messages: [{ role: "user", content: "create an issue" }], tools: many });
    expect(body.length).toBeGreaterThan(2.5 * 2 ** 20);
    expect(body.length).toBeLessThan(4 * 2 ** 20);
    // gpt-4.1's 1M context takes the 191 catalog tools in full, but not 2,000 more
    const r = await ask(rig, [{ role: "user", content: "create an issue" }], undefined, {}, { model: "gpt-4.1", tools: many });
    expect(callOf(r.message).function.name).toBe("create_issue");
    const first = rig.llm.requests[0]!;
    expect(names(first).filter((n) => n.startsWith("mcp__"))).toHaveLength(191);
    expect(names(first).filter((n) => !n.startsWith("mcp__"))).toEqual(["toolSearch"]);
    expect(deferredNames(systemOf(0))).toHaveLength(2000);
  });
});
