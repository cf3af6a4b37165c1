// The OpenAI-compatible agent endpoint, end to end (agent-rig.ts): the real `openai` client ->
// the Worker in workerd -> the scripted upstream model. What a user checks: the client only sees
// real tool calls and answers; every upstream request extends the previous one byte for byte;
// usage and hops add up; streaming and proxy mode keep those promises. Requests without a session
// header that begin with the same messages share a session (chat-session.ts), so a test that needs
// a fresh one begins with messages no other test sends.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ask, AUTH, expectAppendOnly, names, toolResult, useAgentRig, type Json, type Msg } from "./agent-rig.ts";

const rig = useAgentRig();

describe("POST /v1/chat/completions, inject mode", () => {
  it("runs toolSearch server-side over several turns, hands the client only real calls, and keeps every upstream request append-only", async () => {
    const messages: Msg[] = [{ role: "system", content: "You are a helpful agent." }];
    let session: string | undefined;
    const goals = ["create an issue on github", "navigate the browser to a page", "list collections in mongodb"];
    const called: string[] = [];
    for (const goal of goals) {
      messages.push({ role: "user", content: goal });
      const r = await ask(rig, messages, session);
      session ??= r.session;
      expect(r.session).toBe(session);
      expect(r.hops).toBe(2); // toolSearch round hidden, then the real call
      const call = r.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(call.function.name).not.toBe("toolSearch");
      called.push(call.function.name);
      messages.push(r.message as Msg, toolResult(call.id, `ok from ${call.function.name}`));
      const answer = await ask(rig, messages, session);
      expect(answer.hops).toBe(1);
      expect(answer.message.content).toContain(`Done with ${call.function.name}`);
      messages.push(answer.message as Msg);
    }
    expect(called).toEqual(["mcp__github__create_issue", "mcp__playwright__browser_navigate", "mcp__mongodb__list-collections"]);
    expect(rig.llm.requests).toHaveLength(9);
    expectAppendOnly(rig.llm.requests);
    // activations land at the end of tools, in order; the client never saw a toolSearch round
    expect(names(rig.llm.requests.at(-1)!).slice(-4)).toEqual(["toolSearch", ...called]);
    expect(messages.some((m) => m.role === "tool" && String(m.content).includes("Loaded"))).toBe(false);
    // the deferred names section joined the client's own system message
    const sys = rig.llm.requests[0]!.body.messages[0]!;
    expect(String(sys.content)).toMatch(/^You are a helpful agent\.\n\n# Deferred tools\n/);
    // the listing is said once: each deferred name appears once in the whole first request (issue 29)
    const listed = String(sys.content).match(/\bmcp__[A-Za-z0-9_-]+/g)!;
    expect(listed.length).toBeGreaterThan(100);
    const first = JSON.stringify(rig.llm.requests[0]!.body);
    const twice = listed.filter((n) => first.match(new RegExp(`${n}(?![A-Za-z0-9_-])`, "g"))!.length !== 1);
    expect(twice).toEqual([]);
    // prefix reuse: every request after the first was mostly cached
    const later = rig.llm.requests.slice(1);
    const share = later.reduce((n, r) => n + r.usage.cached_tokens, 0) / later.reduce((n, r) => n + r.usage.prompt_tokens, 0);
    expect(share).toBeGreaterThan(0.5);
    const state = (await (await fetch(`${rig.dev.url}/v1/sessions/${session}`, { headers: AUTH })).json()) as Json;
    expect(state.activations).toEqual(called);
  });

  it("sums usage over rounds, including cached tokens", async () => {
    const r = await ask(rig, [{ role: "user", content: "echo a message with everything" }]);
    expect(r.hops).toBe(2);
    const [a, b] = rig.llm.requests;
    expect(r.data.usage!.prompt_tokens).toBe(a!.usage.prompt_tokens + b!.usage.prompt_tokens);
    expect(r.data.usage!.prompt_tokens_details!.cached_tokens).toBe(a!.usage.cached_tokens + b!.usage.cached_tokens);
    expect(b!.usage.cached_tokens).toBeGreaterThan(0);
  });

  it("keeps the client's own tools first and lets it call them without any search", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: {
          name: "lookup_weather_forecast",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ];
    const r = await ask(rig, [{ role: "user", content: "lookup the weather forecast" }], undefined, {}, { tools });
    expect(r.hops).toBe(1);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function).toEqual({
      name: "lookup_weather_forecast",
      arguments: '{"city":"example"}',
    });
    expect(names(rig.llm.requests[0]!)[0]).toBe("lookup_weather_forecast");
  });

  it("skips the splice when the client edits or truncates its history, and still answers correctly", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue on github" }];
    const first = await ask(rig, messages);
    const call = first.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    // the client rewrites the assistant turn before sending it back
    const edited: Msg = { role: "assistant", content: "I will file it.", tool_calls: [call] };
    const r = await ask(rig, [...messages, edited, toolResult(call.id, "filed #1")], first.session);
    expect(r.message.content).toContain("Done with mcp__github__create_issue");
    const last = rig.llm.requests.at(-1)!.body.messages;
    expect(last.some((m) => m.role === "tool" && String(m.content).startsWith("Loaded"))).toBe(false);
    expect(last.at(-2)!.content).toBe("I will file it.");
    expect(r.spliced).toBe(0);
    // unedited, the same history gets the hidden round back
    rig.llm.requests.length = 0;
    const whole = [...messages, first.message as Msg, toolResult(call.id, "filed #1")];
    const again = await ask(rig, whole, first.session);
    expect(again.spliced).toBe(1);
    expect(rig.llm.requests[0]!.body.messages.some((m) => m.role === "tool" && String(m.content).startsWith("Loaded"))).toBe(true);
    // truncated from the front (a client trimming its context): nothing to splice, still answered
    rig.llm.requests.length = 0;
    const cut = await ask(rig, [...whole.slice(1), again.message as Msg, { role: "user", content: "read graph of memory" }], first.session);
    expect(cut.spliced).toBe(0);
    expect(cut.message.tool_calls![0]).toBeDefined();
    expect(rig.llm.requests[0]!.body.messages.some((m) => m.role === "tool" && String(m.content).startsWith("Loaded"))).toBe(false);
  });
});

describe("full mode", () => {
  it("gives a model that cannot use tool search every tool and no toolSearch", async () => {
    const r = await ask(rig, [{ role: "user", content: "create an issue on github" }], undefined, {}, { model: "gpt-4.1-nano" });
    expect(r.hops).toBe(1);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe("mcp__github__create_issue");
    const tools = names(rig.llm.requests[0]!);
    expect(tools).not.toContain("toolSearch");
    expect(tools.length).toBeGreaterThan(150);
    expect(String(rig.llm.requests[0]!.body.messages[0]!.content)).not.toContain("# Deferred tools");
  });
});

describe("streaming", () => {
  it("streams only the final round as OpenAI chunks, tool-call deltas included, with summed usage", async () => {
    const { data: stream, response } = await rig.client.chat.completions
      .create({
        model: "gpt-4o",
        messages: [{ role: "user", content: "create an issue on github, streamed" }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const c of stream) chunks.push(c);
    const calls = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.function!.name).toBe("mcp__github__create_issue");
    expect(JSON.parse(calls[0]!.function!.arguments!)).toEqual({ owner: "example", repo: "example", title: "example" });
    expect(chunks.some((c) => c.choices[0]?.finish_reason === "tool_calls")).toBe(true);
    const usage = chunks.at(-1)!.usage!;
    expect(usage.prompt_tokens).toBe(rig.llm.requests[0]!.usage.prompt_tokens + rig.llm.requests[1]!.usage.prompt_tokens);
    expect(rig.llm.requests).toHaveLength(2);
    expect(rig.llm.requests.every((r) => r.body.stream === true)).toBe(true);
  });

  it("ends the SSE stream with the hop count and [DONE]", async () => {
    const res = await fetch(`${rig.dev.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...AUTH },
      body: JSON.stringify({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "read graph of memory" }] }),
    });
    const text = await res.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    expect(events.at(-2)).toBe(": x-toolsearch-hops 2");
    for (const e of events.slice(0, -2)) expect(JSON.parse(e.replace(/^data: /, "")).object).toBe("chat.completion.chunk");
  });

  it("streams text as it comes and the next turn still splices what the client saw", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue on github [preamble]" }];
    const { data: stream, response } = await rig.client.chat.completions.create({ model: "gpt-4o", messages, stream: true }).withResponse();
    const session = response.headers.get("x-toolsearch-session")!;
    let text = "";
    let call: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      call ??= c.choices[0]?.delta.tool_calls?.[0];
    }
    expect(text).toBe("Let me find the right tool. "); // said in the hidden toolSearch round
    // the client keeps what it assembled from the stream; the next request is append-only upstream
    messages.push({
      role: "assistant",
      content: text,
      tool_calls: [{ id: call!.id!, type: "function", function: { name: call!.function!.name!, arguments: call!.function!.arguments! } }],
    });
    messages.push(toolResult(call!.id!, "filed #7"));
    const r = await ask(rig, messages, session);
    expect(r.message.content).toContain("Done with mcp__github__create_issue");
    expectAppendOnly(rig.llm.requests);
  });
});

describe("proxy mode", () => {
  it("never changes the upstream tools; the model calls through callTool and the client gets the real call", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue on github" }];
    const first = await ask(rig, messages, undefined, { "x-toolsearch-activation": "proxy" });
    const call = first.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("mcp__github__create_issue");
    expect(JSON.parse(call.function.arguments)).toEqual({ owner: "example", repo: "example", title: "example" });
    // upstream called callTool; the toolSearch result carried the schema as text
    expect(rig.llm.requests[1]!.reply!.tool_calls![0]!.function.name).toBe("callTool");
    expect(String(rig.llm.requests[1]!.body.messages.at(-1)!.content)).toContain('\n{"name":"mcp__github__create_issue","description":');
    messages.push(
      first.message as Msg,
      toolResult(call.id, "filed #2"),
      { role: "assistant", content: "Filed." },
      { role: "user", content: "navigate the browser to a page" },
    );
    const second = await ask(rig, messages, first.session);
    expect((second.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe(
      "mcp__playwright__browser_navigate",
    );
    const tools = rig.llm.requests.map((r) => JSON.stringify(r.body.tools));
    expect(new Set(tools).size).toBe(1);
    expect(names(rig.llm.requests[0]!)).toEqual(["mcp__memory__search_nodes", "toolSearch", "callTool"]);
    expectAppendOnly(rig.llm.requests);
  });
});

describe("listing forms through the endpoint", () => {
  it("with no names listed (x-toolsearch-listing: none) the model finds the tool by keywords", async () => {
    const r = await ask(rig, [{ role: "user", content: "create an issue on github" }], undefined, { "x-toolsearch-listing": "none" });
    expect(r.hops).toBe(2);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe("mcp__github__create_issue");
    const system = String(rig.llm.requests[0]!.body.messages[0]!.content);
    expect(system).toContain("190 tools from 12 servers exist but are not loaded");
    expect(system).not.toContain("mcp__github__");
    expect(rig.llm.requests[0]!.reply!.tool_calls![0]!.function.arguments).toBe(JSON.stringify({ query: "create an issue on github" }));
    const state = (await (await fetch(`${rig.dev.url}/v1/sessions/${r.session}`, { headers: AUTH })).json()) as Json;
    expect(state).toMatchObject({ listing: "none", reason: expect.stringContaining('listing "none" (') });
    expect(state.reason).toContain("requested for this session");
  });
});
