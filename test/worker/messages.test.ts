// POST /v1/messages inside workerd (real Durable Objects, the scripted Chat Completions upstream in
// Node): errors in Anthropic's shape with Anthropic's statuses; a refused request creates no
// session and calls no model; Claude Code's metadata.user_id names the session; x-api-key works
// as the key, and a bad or missing one is Anthropic's 401 authentication_error (the SDK's
// AuthenticationError) while other routes keep theirs; upstream failures keep the shape;
// count_tokens counts what deferral leaves.
import { beforeEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { keyedSessionId } from "../../worker/session/create.ts";
import Anthropic from "@anthropic-ai/sdk";
import { callWith, fetchWith, KEY_A, modelLane, type Json } from "./helpers.ts";

const upstream = modelLane();
const vars = { OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_TIMEOUT_MS: "20000", UPSTREAM_MAX_RETRIES: "0" };
const control = (what: string, body: unknown = {}) =>
  fetch(`${upstream.replace(/\/v1$/, "")}/_control/${what}`, {
    method: what === "requests" ? "GET" : "POST",
    body: what === "requests" ? undefined : JSON.stringify(body),
  }).then((r) => r.json() as Promise<Json[]>);
const post = (body: Record<string, unknown>, headers?: Record<string, string>, path = "/v1/messages") =>
  callWith(vars, "POST", path, { model: "claude-sonnet-4-6", max_tokens: 1024, ...body }, headers);
const user = (content: unknown) => ({ role: "user", content });
const meta = (sid: string) => ({ user_id: JSON.stringify({ device_id: "d", account_uuid: "", session_id: sid }) });
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name} tool`,
  input_schema: { type: "object", properties: {} },
  ...extra,
});

beforeEach(() => control("reset"));

describe("bad input", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["max_tokens of the wrong type", { max_tokens: "many", messages: [user("hi")] }, "max_tokens: "],
    [
      "a tool_result with no matching tool_use",
      { messages: [user([{ type: "tool_result", tool_use_id: "toolu_never", content: "42" }])] },
      'messages.0.content.0.tool_use_id: no tool_use with id "toolu_never"',
    ],
    [
      "an unknown tool in tool_choice",
      { messages: [user("hi")], tools: [tool("get_weather")], tool_choice: { type: "tool", name: "get_time" } },
      'tool_choice.name: "get_time" is not one of the request\'s tools',
    ],
    [
      "an unknown block type",
      { messages: [user([{ type: "hologram", data: "x" }])] },
      "messages.0.content.0.type: unknown content block type",
    ],
    ["a tool without input_schema", { messages: [user("hi")], tools: [{ name: "x" }] }, "tools.0"],
    ["a role Messages does not have", { messages: [{ role: "system", content: "hi" }] }, 'messages.0.role: must be "user" or "assistant"'],
  ];
  it.each(cases)("%s: a 400 in Anthropic's shape; no session, no model call", async (_name, body, message) => {
    const sid = `refused-${_name}`;
    const r = await post({ ...body, metadata: meta(sid) });
    expect(r.status).toBe(400);
    expect(r.body.type).toBe("error");
    expect(r.body.error.type).toBe("invalid_request_error");
    expect(r.body.error.message).toContain(message);
    const id = await keyedSessionId({ tenant: "tenant-a", env }, `surface\u0000claude-code\u0000${sid}\u0000chat`);
    expect((await callWith(vars, "GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect(await control("requests")).toEqual([]);
  });

  it("the same conversation, well formed, reaches the session its metadata.user_id names", async () => {
    const r = await post({ messages: [user("hello")], metadata: meta("claude-code-session-1") });
    expect(r.status).toBe(200);
    const id = await keyedSessionId({ tenant: "tenant-a", env }, `surface\u0000claude-code\u0000claude-code-session-1\u0000chat`);
    expect(r.headers.get("x-toolsearch-session")).toBe(id);
    expect(r.headers.get("x-toolsearch-upstream")).toBe("chat");
    expect(r.body).toMatchObject({ type: "message", role: "assistant", stop_reason: "end_turn" });
    expect(r.body.id).toMatch(/^msg_/);
  });
});

describe("blocks to a chat upstream", () => {
  it("images, documents and tool results become chat parts and tool messages; thinking and the Worker's own search blocks are left out", async () => {
    const png = "iVBORw0KGgo=";
    const r = await post({
      system: [{ type: "text", text: "Blocks.", cache_control: { type: "ephemeral" } }],
      tools: [tool("get_weather")],
      messages: [
        user([
          { type: "text", text: "look" },
          { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "the doc" } },
        ]),
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "hmm", signature: "sig" },
            { type: "server_tool_use", id: "srvtoolu_1", name: "tool_search_tool_bm25", input: { query: "x" } },
            {
              type: "tool_search_tool_result",
              tool_use_id: "srvtoolu_1",
              content: { type: "tool_search_tool_search_result", tool_references: [] },
            },
            { type: "text", text: "calling" },
            { type: "tool_use", id: "toolu_9", name: "get_weather", input: { city: "Oslo" } },
          ],
        },
        user([{ type: "tool_result", tool_use_id: "toolu_9", content: [{ type: "text", text: "rain" }], is_error: true }]),
      ],
    });
    expect(r.status).toBe(200);
    const [sent] = await control("requests");
    expect(sent.body.messages[0]).toEqual({ role: "system", content: "Blocks." });
    expect(sent.body.messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
        { type: "text", text: "the doc" },
      ],
    });
    expect(sent.body.messages[2]).toEqual({
      role: "assistant",
      content: "calling",
      tool_calls: [{ id: "toolu_9", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }],
    });
    expect(sent.body.messages[3]).toEqual({ role: "tool", tool_call_id: "toolu_9", content: "Error: rain" });
    expect(JSON.stringify(sent.body)).not.toMatch(/thinking|server_tool_use|cache_control|input_schema/);
  });
});

describe("keys and upstream failures", () => {
  it("x-api-key is a key like Authorization: Bearer; a wrong one is a 401", async () => {
    const ok = await post({ messages: [user("hello")] }, { authorization: "", "x-api-key": KEY_A });
    expect(ok.status).toBe(200);
    const denied = await post({ messages: [user("hello")] }, { authorization: "", "x-api-key": "wrong-key-0000000000" });
    expect(denied.status).toBe(401);
  });

  it("a wrong x-api-key's 401 names x-api-key, the header the client sent, not Authorization: Bearer", async () => {
    for (const path of ["/v1/messages", "/v1/messages/count_tokens"]) {
      for (const key of ["wrong-key-0000000000", "two words"]) {
        const denied = await post({ messages: [user("hello")] }, { authorization: "", "x-api-key": key }, path);
        expect([denied.status, denied.body.error.type]).toEqual([401, "authentication_error"]);
        expect(denied.body.error.message).toMatch(/x-api-key/);
        expect(denied.body.error.message).not.toMatch(/Bearer/);
      }
    }
    // a Bearer client is still told about Bearer
    const bearer = await post({ messages: [user("hello")] }, { authorization: "Bearer wrong-key-0000000000" });
    expect(bearer.body.error.message).toMatch(/Authorization: Bearer/);
  });

  it("a wrong or missing key: Anthropic's 401 authentication_error on both Messages routes (the SDK's AuthenticationError), WWW-Authenticate kept; chat's 401 unchanged", async () => {
    const sdk = new Anthropic({
      baseURL: "https://toolsearch.test",
      apiKey: "wrong-key-0000000000",
      maxRetries: 0,
      fetch: fetchWith(vars),
    });
    const sent = sdk.messages.create({ model: "claude-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: "hello" }] });
    const err = await sent.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((err as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({
      type: "error",
      error: { type: "authentication_error", message: expect.any(String) },
    });
    for (const path of ["/v1/messages", "/v1/messages/count_tokens"]) {
      const missing = await post({ messages: [user("hello")] }, { authorization: "" }, path);
      expect([missing.status, missing.body.type, missing.body.error.type]).toEqual([401, "error", "authentication_error"]);
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }
    const chat = await callWith(
      vars,
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [user("hello")] },
      { authorization: "" },
    );
    expect(chat.status).toBe(401);
    expect(chat.body.error.code).toBeDefined();
    expect(chat.body.type).toBeUndefined();
    expect(chat.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(await control("requests")).toEqual([]);
  });

  it("an upstream 5xx is a 502 api_error; an upstream 4xx keeps its status", async () => {
    await control("fail", [{ status: 500 }]);
    const failed = await post({ messages: [user("hello 5xx")] });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ type: "error", error: { type: "api_error" } });
    await control("fail", [{ status: 429, body: { error: { message: "slow down", type: "rate_limit" } } }]);
    const limited = await post({ messages: [user("hello 429")] });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ type: "error", error: { type: "rate_limit_error", message: "slow down" } });
  });

  it("asking for the Anthropic upstream where none is configured is a 400 naming the header", async () => {
    const r = await post({ messages: [user("hello")] }, { "x-toolsearch-upstream": "anthropic" });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toContain("x-toolsearch-upstream");
  });
});

describe("count_tokens", () => {
  it("counts the tools deferral leaves: a deferred tool costs its name, not its schema, until referenced", async () => {
    const big = {
      type: "object",
      properties: Object.fromEntries(
        Array.from({ length: 40 }, (_, i) => [`field_${i}`, { type: "string", description: "a long description ".repeat(4) }]),
      ),
    };
    const tools = [
      tool("ToolSearch"),
      tool("mcp__shop__big", { input_schema: big, defer_loading: true }),
      tool("DeferredToolPlaceholder", { defer_loading: true }),
    ];
    const deferred = await post({ messages: [user("hi")], tools }, {}, "/v1/messages/count_tokens");
    const loaded = await post(
      {
        messages: [
          user("hi"),
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "ToolSearch", input: { query: "big" } }] },
          user([{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "tool_reference", tool_name: "mcp__shop__big" }] }]),
        ],
        tools,
      },
      {},
      "/v1/messages/count_tokens",
    );
    expect([deferred.status, loaded.status]).toEqual([200, 200]);
    expect(deferred.headers.get("x-toolsearch-count")).toBe("estimate");
    expect(loaded.body.input_tokens - deferred.body.input_tokens).toBeGreaterThan(JSON.stringify(big).length * 0.15);
    expect(await control("requests")).toEqual([]);
  });
});
