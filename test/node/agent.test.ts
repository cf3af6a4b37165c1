// The OpenAI-compatible agent endpoint, end to end: the real `openai` client -> the Worker in
// workerd (wrangler dev, the demo catalog, real Durable Objects) -> the scripted upstream model.
// What a user checks: the client only sees real tool calls and answers; every upstream request
// extends the previous one byte for byte; usage and hops add up; failures are clear errors.
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startScriptedLLM, type Recorded, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";

let llm: ScriptedLLM;
let dev: DevServer;
let client: OpenAI;
const KEY = "agent-test-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}` };
type Msg = OpenAI.ChatCompletionMessageParam;
type APIError = InstanceType<typeof OpenAI.APIError>;
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

beforeAll(async () => {
  llm = await startScriptedLLM();
  dev = await startWranglerDev({
    persistTo: await tempDir("toolsearch-agent-"),
    vars: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "test-key", UPSTREAM_TIMEOUT_MS: "1500", UPSTREAM_MAX_RETRIES: "1", API_KEYS: JSON.stringify({ [KEY]: "agent-tests" }) },
  });
  client = new OpenAI({ baseURL: `${dev.url}/v1`, apiKey: KEY, maxRetries: 0 });
}, 90_000);
afterAll(async () => {
  await dev?.stop();
  await llm?.close();
});
beforeEach(() => llm.reset());

async function ask(messages: Msg[], session?: string, headers: Record<string, string> = {}, extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) {
  const { data, response } = await client.chat.completions
    .create({ model: "gpt-4o", messages, ...extra }, { headers: { ...(session ? { "x-toolsearch-session": session } : {}), ...headers } })
    .withResponse();
  return { data, message: data.choices[0]!.message, session: response.headers.get("x-toolsearch-session")!, hops: Number(response.headers.get("x-toolsearch-hops")) };
}

/** Every upstream request begins with the previous one (messages and tools), byte for byte. */
function expectAppendOnly(reqs: Recorded[]) {
  for (let i = 1; i < reqs.length; i++) {
    const prev = JSON.stringify(reqs[i - 1]!.body.messages);
    const cur = JSON.stringify(reqs[i]!.body.messages);
    expect(cur.startsWith(prev.slice(0, -1)), `messages of upstream request ${i} extend request ${i - 1}`).toBe(true);
    const prevTools = JSON.stringify(reqs[i - 1]!.body.tools ?? []);
    expect(JSON.stringify(reqs[i]!.body.tools ?? []).startsWith(prevTools.slice(0, -1)), `tools of request ${i} extend request ${i - 1}`).toBe(true);
  }
}

const toolResult = (id: string, content: string): Msg => ({ role: "tool", tool_call_id: id, content });
const names = (r: Recorded) => (r.body.tools ?? []).map((t) => t.function.name);

describe("POST /v1/chat/completions, inject mode", () => {
  it("runs toolSearch server-side over several turns, hands the client only real calls, and keeps every upstream request append-only", async () => {
    const messages: Msg[] = [{ role: "system", content: "You are a helpful agent." }];
    let session: string | undefined;
    const goals = ["create an issue on github", "navigate the browser to a page", "list collections in mongodb"];
    const called: string[] = [];
    for (const goal of goals) {
      messages.push({ role: "user", content: goal });
      const r = await ask(messages, session);
      session ??= r.session;
      expect(r.session).toBe(session);
      expect(r.hops).toBe(2); // toolSearch round hidden, then the real call
      const call = r.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
      expect(call.function.name).not.toBe("toolSearch");
      called.push(call.function.name);
      messages.push(r.message as Msg, toolResult(call.id, `ok from ${call.function.name}`));
      const answer = await ask(messages, session);
      expect(answer.hops).toBe(1);
      expect(answer.message.content).toContain(`Done with ${call.function.name}`);
      messages.push(answer.message as Msg);
    }
    expect(called).toEqual(["mcp__github__create_issue", "mcp__playwright__browser_navigate", "mcp__mongodb__list-collections"]);
    expect(llm.requests).toHaveLength(9);
    expectAppendOnly(llm.requests);
    // activations land at the end of tools, in order; the client never saw a toolSearch round
    expect(names(llm.requests.at(-1)!).slice(-4)).toEqual(["toolSearch", ...called]);
    expect(messages.some((m) => m.role === "tool" && String(m.content).includes("Loaded"))).toBe(false);
    // the deferred names section joined the client's own system message
    const sys = llm.requests[0]!.body.messages[0]!;
    expect(String(sys.content)).toMatch(/^You are a helpful agent\.\n\n# Deferred tools\n/);
    // prefix reuse: every request after the first was mostly cached
    const later = llm.requests.slice(1);
    const share = later.reduce((n, r) => n + r.usage.cached_tokens, 0) / later.reduce((n, r) => n + r.usage.prompt_tokens, 0);
    expect(share).toBeGreaterThan(0.5);
    const state = (await (await fetch(`${dev.url}/v1/sessions/${session}`, { headers: AUTH })).json()) as Json;
    expect(state.activations).toEqual(called);
  });

  it("sums usage over rounds, including cached tokens", async () => {
    const r = await ask([{ role: "user", content: "echo a message with everything" }]);
    expect(r.hops).toBe(2);
    const [a, b] = llm.requests;
    expect(r.data.usage!.prompt_tokens).toBe(a!.usage.prompt_tokens + b!.usage.prompt_tokens);
    expect(r.data.usage!.prompt_tokens_details!.cached_tokens).toBe(a!.usage.cached_tokens + b!.usage.cached_tokens);
    expect(b!.usage.cached_tokens).toBeGreaterThan(0);
  });

  it("keeps the client's own tools first and lets it call them without any search", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "lookup_weather_forecast", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
    const r = await ask([{ role: "user", content: "lookup the weather forecast" }], undefined, {}, { tools });
    expect(r.hops).toBe(1);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function).toEqual({ name: "lookup_weather_forecast", arguments: '{"city":"example"}' });
    expect(names(llm.requests[0]!)[0]).toBe("lookup_weather_forecast");
  });

  it("skips the splice when the client edits its history, and still answers correctly", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue on github" }];
    const first = await ask(messages);
    const call = first.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    // the client rewrites the assistant turn before sending it back
    const edited: Msg = { role: "assistant", content: "I will file it.", tool_calls: [call] };
    const r = await ask([...messages, edited, toolResult(call.id, "filed #1")], first.session);
    expect(r.message.content).toContain("Done with mcp__github__create_issue");
    const last = llm.requests.at(-1)!.body.messages;
    expect(last.some((m) => m.role === "tool" && String(m.content).startsWith("Loaded"))).toBe(false);
    expect(last.at(-2)!.content).toBe("I will file it.");
    // unedited, the same history gets the hidden round back
    llm.requests.length = 0;
    await ask([...messages, first.message as Msg, toolResult(call.id, "filed #1")], first.session);
    expect(llm.requests[0]!.body.messages.some((m) => m.role === "tool" && String(m.content).startsWith("Loaded"))).toBe(true);
  });
});

describe("full mode", () => {
  it("gives a model that cannot use tool search every tool and no toolSearch", async () => {
    const r = await ask([{ role: "user", content: "create an issue on github" }], undefined, {}, { model: "gpt-4.1-nano" });
    expect(r.hops).toBe(1);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe("mcp__github__create_issue");
    const tools = names(llm.requests[0]!);
    expect(tools).not.toContain("toolSearch");
    expect(tools.length).toBeGreaterThan(150);
    expect(String(llm.requests[0]!.body.messages[0]!.content)).not.toContain("# Deferred tools");
  });
});

describe("calls the model makes without loading", () => {
  it("loads a deferred tool called directly and passes valid arguments to the client", async () => {
    const r = await ask([{ role: "user", content: "read graph of memory [no-load]" }]);
    expect(r.hops).toBe(1);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe("mcp__memory__read_graph");
    const state = (await (await fetch(`${dev.url}/v1/sessions/${r.session}`, { headers: AUTH })).json()) as Json;
    expect(state.activations).toEqual(["mcp__memory__read_graph"]);
  });

  it("answers invalid arguments with the validation errors and lets the model retry", async () => {
    const r = await ask([{ role: "user", content: "create an issue on github [no-load] [bad-args]" }]);
    expect(r.hops).toBe(2);
    const call = r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("mcp__github__create_issue");
    expect(JSON.parse(call.function.arguments)).toEqual({ owner: "example", repo: "example", title: "example" });
    const hidden = llm.requests[1]!.body.messages.at(-1)!;
    expect(String(hidden.content)).toMatch(/^Error: invalid arguments for mcp__github__create_issue:\n- arguments.*owner/s);
    expect(names(llm.requests[1]!)).toContain("mcp__github__create_issue");
  });

  it("answers an unknown tool with the closest names", async () => {
    const r = await ask([{ role: "user", content: "do something [unknown]" }]);
    expect(r.hops).toBe(2);
    expect(r.message.content).toContain("That tool does not exist");
    expect(String(llm.requests[1]!.body.messages.at(-1)!.content)).toMatch(/^Error: there is no tool "mcp__nope__does_not_exist"\. Closest names: mcp__/);
  });

  it("stops at maxHops and makes the model answer with tool_choice none", async () => {
    const r = await ask([{ role: "user", content: "search github repositories [loop]" }], undefined, { "x-toolsearch-max-hops": "2" });
    expect(r.hops).toBe(3);
    expect(llm.requests.map((q) => q.body.tool_choice)).toEqual([undefined, undefined, "none"]);
    expect(r.message.content).toMatch(/could not finish/);
    expect(r.message.tool_calls ?? []).toEqual([]);
  });
});

describe("streaming", () => {
  it("streams only the final round as OpenAI chunks, tool-call deltas included, with summed usage", async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "create an issue on github" }], stream: true, stream_options: { include_usage: true } })
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
    expect(usage.prompt_tokens).toBe(llm.requests[0]!.usage.prompt_tokens + llm.requests[1]!.usage.prompt_tokens);
    expect(llm.requests).toHaveLength(2);
    expect(llm.requests.every((r) => r.body.stream === true)).toBe(true);
  });

  it("ends the SSE stream with the hop count and [DONE]", async () => {
    const res = await fetch(`${dev.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...AUTH }, body: JSON.stringify({ model: "gpt-4o", stream: true, messages: [{ role: "user", content: "read graph of memory" }] }) });
    const text = await res.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    expect(events.at(-2)).toBe(": x-toolsearch-hops 2");
    for (const e of events.slice(0, -2)) expect(JSON.parse(e.replace(/^data: /, "")).object).toBe("chat.completion.chunk");
  });

  it("streams text as it comes and the next turn still splices what the client saw", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue on github [preamble]" }];
    const { data: stream, response } = await client.chat.completions.create({ model: "gpt-4o", messages, stream: true }).withResponse();
    const session = response.headers.get("x-toolsearch-session")!;
    let text = "";
    let call: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall | undefined;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? "";
      call ??= c.choices[0]?.delta.tool_calls?.[0];
    }
    expect(text).toBe("Let me find the right tool. "); // said in the hidden toolSearch round
    // the client keeps what it assembled from the stream; the next request is append-only upstream
    messages.push({ role: "assistant", content: text, tool_calls: [{ id: call!.id!, type: "function", function: { name: call!.function!.name!, arguments: call!.function!.arguments! } }] });
    messages.push(toolResult(call!.id!, "filed #7"));
    const r = await ask(messages, session);
    expect(r.message.content).toContain("Done with mcp__github__create_issue");
    expectAppendOnly(llm.requests);
  });
});

describe("proxy mode", () => {
  it("never changes the upstream tools; the model calls through callTool and the client gets the real call", async () => {
    const messages: Msg[] = [{ role: "user", content: "create an issue on github" }];
    const first = await ask(messages, undefined, { "x-toolsearch-activation": "proxy" });
    const call = first.message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("mcp__github__create_issue");
    expect(JSON.parse(call.function.arguments)).toEqual({ owner: "example", repo: "example", title: "example" });
    // upstream called callTool; the toolSearch result carried the schema as text
    expect(llm.requests[1]!.reply!.tool_calls![0]!.function.name).toBe("callTool");
    expect(String(llm.requests[1]!.body.messages.at(-1)!.content)).toContain('\n{"name":"mcp__github__create_issue","description":');
    messages.push(first.message as Msg, toolResult(call.id, "filed #2"), { role: "assistant", content: "Filed." }, { role: "user", content: "navigate the browser to a page" });
    const second = await ask(messages, first.session);
    expect((second.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe("mcp__playwright__browser_navigate");
    const tools = llm.requests.map((r) => JSON.stringify(r.body.tools));
    expect(new Set(tools).size).toBe(1);
    expect(names(llm.requests[0]!)).toEqual(["mcp__memory__search_nodes", "toolSearch", "callTool"]);
    expectAppendOnly(llm.requests);
  });
});

describe("upstream failures", () => {
  it("passes a 4xx through in OpenAI's error shape", async () => {
    llm.fail({ status: 400, body: { error: { message: "context too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } } });
    const err = await ask([{ role: "user", content: "hello" }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as APIError).code).toBe("context_length_exceeded");
    expect((err as APIError).message).toContain("context too long");
    expect(llm.requests).toHaveLength(1);
  });

  it("retries a 5xx and succeeds when the upstream recovers", async () => {
    llm.fail({ status: 500 });
    const r = await ask([{ role: "user", content: "read graph of memory [no-load]" }]);
    expect(r.hops).toBe(1);
    expect(llm.requests).toHaveLength(2);
  });

  it("gives 502 after the retries are spent, for errors, garbage and timeouts", async () => {
    for (const fault of [{ status: 503 }, { garbage: true as const }, { hang: true as const }]) {
      llm.reset();
      llm.fail(fault, fault);
      const res = await fetch(`${dev.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...AUTH }, body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }) });
      expect(res.status, JSON.stringify(fault)).toBe(502);
      const body = (await res.json()) as Json;
      expect(body.error.code).toBe("upstream_error");
      expect(body.error.message).toMatch("hang" in fault ? /did not answer within 1500 ms \(tried 2 times\)/ : "garbage" in fault ? /not a chat completion stream/ : /upstream answered 503 \(tried 2 times\)/);
      // a garbage stream is answered 200 and not retried; errors and timeouts are tried twice
      expect(llm.requests).toHaveLength("garbage" in fault ? 1 : 2);
    }
  });
});

describe("bad requests", () => {
  it.each([
    ["no messages", { model: "gpt-4o", messages: [] }, /^messages: Array must contain at least 1/],
    ["bad role", { model: "gpt-4o", messages: [{ role: "robot", content: "x" }] }, /^messages\.0\.role: /],
    ["reserved tool name", { model: "gpt-4o", messages: [{ role: "user", content: "x" }], tools: [{ type: "function", function: { name: "toolSearch" } }] }, /^tools\.0\.function\.name: is reserved/],
    ["n > 1", { model: "gpt-4o", messages: [{ role: "user", content: "x" }], n: 2 }, /^n: only n = 1/],
  ])("%s: 400 naming the field", async (_, body, message) => {
    const res = await fetch(`${dev.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...AUTH }, body: JSON.stringify(body) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toMatch(message);
    expect(llm.requests).toHaveLength(0);
  });

  it("404 for an unknown session, without calling upstream", async () => {
    const err = await ask([{ role: "user", content: "hi" }], "ses_" + "A".repeat(32)).catch((e: unknown) => e);
    expect((err as APIError).status).toBe(404);
    expect(llm.requests).toHaveLength(0);
  });
});
