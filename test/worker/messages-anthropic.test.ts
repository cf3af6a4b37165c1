// The Messages endpoint in front of an Anthropic-compatible upstream (ANTHROPIC_BASE_URL; the
// scripted model speaks Messages too), inside workerd. What the upstream receives is checked as
// sent: deferral already applied (no defer_loading, tool_reference, placeholder, nor the beta that
// asks for them), names only until a tool is loaded, then its schema appended; each request extends
// the previous one byte for byte; the client's system blocks keep cache_control, and thinking and
// other betas pass. A header chooses the Chat Completions upstream instead; a header names the one used.
// With extended thinking (the real @anthropic-ai/sdk), the scripted upstream signs its thinking and
// refuses a tool_use turn sent back without it, as Anthropic does: hidden rounds keep theirs, the
// client gets every round's thinking (streamed as thinking_delta and signature_delta) and its history
// sent back is accepted.
import Anthropic from "@anthropic-ai/sdk";
import { beforeEach, describe, expect, it } from "vitest";
import { callWith, fetchWith, KEY_A, modelLane, type Json } from "./helpers.ts";

const upstream = modelLane();
const vars = {
  OPENAI_BASE_URL: upstream,
  OPENAI_API_KEY: "test",
  ANTHROPIC_BASE_URL: upstream.replace(/\/v1$/, ""),
  UPSTREAM_TIMEOUT_MS: "20000",
  UPSTREAM_MAX_RETRIES: "0",
};
const control = (what: string) =>
  fetch(`${upstream.replace(/\/v1$/, "")}/_control/${what}`, {
    method: what === "requests" ? "GET" : "POST",
    body: what === "requests" ? undefined : "{}",
  }).then((r) => r.json() as Promise<Json[]>);
const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  callWith(vars, "POST", "/v1/messages", { model: "claude-sonnet-4-6", max_tokens: 1024, ...body }, headers);
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `The ${name.replace(/_/g, " ")} tool`,
  input_schema: { type: "object", properties: { city: { type: "string", description: "which city" } }, required: ["city"] },
  ...extra,
});
const BETA = { "anthropic-beta": "claude-code-20250219,advanced-tool-use-2025-11-20,interleaved-thinking-2025-05-14" };

/** Every Messages request the upstream got extends the previous one: system equal, tools and messages prefixes. */
function expectAppendOnlyAsSent(reqs: Json[]) {
  for (let i = 1; i < reqs.length; i++) {
    const [a, b] = [reqs[i - 1].raw, reqs[i].raw];
    expect(JSON.stringify(b.system)).toBe(JSON.stringify(a.system));
    expect(JSON.stringify(b.tools ?? []).startsWith(JSON.stringify(a.tools ?? []).slice(0, -1)), `tools of ${i}`).toBe(true);
    expect(JSON.stringify(b.messages).startsWith(JSON.stringify(a.messages).slice(0, -1)), `messages of ${i}`).toBe(true);
  }
}
function expectDeferralApplied(reqs: Json[]) {
  for (const r of reqs) {
    expect(r.api).toBe("messages");
    for (const word of ["defer_loading", "tool_reference", "DeferredToolPlaceholder", "tool_search_tool_"])
      expect(JSON.stringify(r.raw)).not.toContain(word);
    expect(r.beta).not.toContain("advanced-tool-use");
  }
}

beforeEach(() => control("reset"));

describe("the Anthropic upstream", () => {
  it("Claude Code's shapes: ToolSearch -> tool_reference -> call; the upstream gets the tool appended, deferral applied, system blocks and betas kept", async () => {
    const system = [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }];
    const builtin = [tool("Bash"), { ...tool("ToolSearch"), input_schema: { type: "object", properties: { query: { type: "string" } } } }];
    const placeholder = tool("DeferredToolPlaceholder", { defer_loading: true });
    const metadata = { user_id: JSON.stringify({ session_id: "anthropic-upstream-1" }) };
    const thinking = { type: "enabled", budget_tokens: 2048 };
    const messages: Json[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "<system-reminder>\nmcp__shop__get_weather\n</system-reminder>" },
          { type: "text", text: "get the weather" },
        ],
      },
    ];
    const first = await post({ system, messages, tools: [...builtin, placeholder], metadata, thinking }, BETA);
    expect(first.status).toBe(200);
    expect(first.headers.get("x-toolsearch-upstream")).toBe("anthropic");
    const search = first.body.content.find((b: Json) => b.type === "tool_use");
    expect(search).toMatchObject({ name: "ToolSearch", input: { query: "select:mcp__shop__get_weather" } });
    messages.push(
      { role: "assistant", content: first.body.content },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: search.id, content: [{ type: "tool_reference", tool_name: "mcp__shop__get_weather" }] },
        ],
      },
    );
    const loaded = [
      ...builtin,
      tool("mcp__shop__get_weather", { defer_loading: true }),
      tool("mcp__shop__send_mail", { defer_loading: true }),
      placeholder,
    ];
    const second = await post({ system, messages, tools: loaded, metadata, thinking }, BETA);
    const call = second.body.content.find((b: Json) => b.type === "tool_use");
    expect(call).toMatchObject({ name: "mcp__shop__get_weather", input: { city: "example" } });
    const reqs = await control("requests");
    expect(reqs.map((r) => r.raw.tools.map((t: Json) => t.name))).toEqual([
      ["Bash", "ToolSearch"],
      ["Bash", "ToolSearch", "mcp__shop__get_weather"],
    ]);
    expect(reqs[0].raw.system).toEqual(system);
    expect(reqs[0].raw.thinking).toEqual(thinking);
    expect(reqs[0].beta).toBe("claude-code-20250219,interleaved-thinking-2025-05-14");
    expectDeferralApplied(reqs);
    expectAppendOnlyAsSent(reqs);
    expect(second.headers.get("x-toolsearch-session")).toBe(first.headers.get("x-toolsearch-session"));
  });

  it("bm25 over deferred tools, streamed: names only until the hidden search loads one, then its schema at the end", async () => {
    const tools = [
      { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
      tool("get_weather", { defer_loading: true }),
      tool("send_email", { defer_loading: true }),
    ];
    const r = await post({
      system: "You help (bm25, anthropic).",
      messages: [{ role: "user", content: "get the weather" }],
      tools,
      stream: true,
    });
    expect(r.status).toBe(200);
    const events = r.text
      .split("\n")
      .filter((l: string) => l.startsWith("event: "))
      .map((l: string) => l.slice(7));
    expect(events[0]).toBe("message_start");
    expect(events.at(-1)).toBe("message_stop");
    expect(r.text).toContain('"tool_search_tool_result"');
    expect(r.text).toContain('"name":"get_weather"');
    const reqs = await control("requests");
    expect(reqs.length).toBe(2);
    const [before, after] = reqs.map((q) => (q.raw.tools as Json[]).map((t) => t.name));
    expect(before).not.toContain("get_weather");
    expect(JSON.stringify(reqs[0].raw.system)).toContain("get_weather");
    expect(after!.at(-1)).toBe("get_weather");
    expectDeferralApplied(reqs);
    expectAppendOnlyAsSent(reqs);
  });

  it("count_tokens is forwarded to the upstream's own count, of the request deferral leaves: what the first round then sends", async () => {
    const tools = [tool("Bash"), tool("mcp__shop__big", { defer_loading: true }), tool("DeferredToolPlaceholder", { defer_loading: true })];
    const body = { system: "You count (anthropic).", messages: [{ role: "user", content: "hello there" }], tools };
    const counted = await callWith(vars, "POST", "/v1/messages/count_tokens", { model: "claude-sonnet-4-6", ...body });
    expect(counted.status).toBe(200);
    expect(counted.headers.get("x-toolsearch-count")).toBe("forwarded");
    expect(counted.headers.get("x-toolsearch-upstream")).toBe("anthropic");
    expect(await control("requests")).toEqual([]);
    const sent = await post(body);
    expect(sent.status).toBe(200);
    const [first] = await control("requests");
    expect(JSON.stringify(first.raw)).not.toContain("mcp__shop__big");
    expect(counted.body.input_tokens).toBe(first.usage.prompt_tokens);
  });

  it("x-toolsearch-upstream: chat sends the same request to the Chat Completions upstream instead", async () => {
    const r = await post({ messages: [{ role: "user", content: "hello" }] }, { "x-toolsearch-upstream": "chat" });
    expect([r.status, r.headers.get("x-toolsearch-upstream")]).toEqual([200, "chat"]);
    expect((await control("requests")).map((q) => q.api)).toEqual(["chat"]);
  });

  it("an upstream 4xx passes with its status in Anthropic's shape", async () => {
    await fetch(`${upstream.replace(/\/v1$/, "")}/_control/fail`, {
      method: "POST",
      body: JSON.stringify([
        { status: 400, body: { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } } },
      ]),
    });
    const r = await post({ messages: [{ role: "user", content: "hello" }] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } });
  });
});

describe("extended thinking on the Anthropic upstream", () => {
  const client = new Anthropic({ baseURL: "https://toolsearch.test", apiKey: KEY_A, maxRetries: 0, fetch: fetchWith(vars) });
  const thinking = { type: "enabled" as const, budget_tokens: 1024 };
  const tools: Anthropic.ToolUnion[] = [
    { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
    tool("get_weather", { defer_loading: true }) as Anthropic.Tool,
    tool("send_email", { defer_loading: true }) as Anthropic.Tool,
  ];
  const base = { model: "claude-sonnet-4-6", max_tokens: 2048, thinking, tools };
  const thoughts = (content: Anthropic.ContentBlock[]) => content.filter((b): b is Anthropic.ThinkingBlock => b.type === "thinking");
  /** each upstream request's assistant turns: the thinking blocks before its first tool_use */
  const sentThinking = (r: Json) =>
    (r.raw.messages as Json[])
      .filter((m) => m.role === "assistant")
      .map((m) =>
        (m.content as Json[]).slice(
          0,
          (m.content as Json[]).findIndex((b) => b.type === "tool_use"),
        ),
      );

  it("a hidden search round keeps its signed thinking upstream; the client gets both rounds' thinking; its history sent back is accepted", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "get the weather" }];
    const system = "You help (thinking, create).";
    const first = await client.messages.create({ ...base, system, messages });
    expect(first.content.map((b) => b.type)).toEqual(["thinking", "thinking", "server_tool_use", "tool_search_tool_result", "tool_use"]);
    const [hidden, own] = thoughts(first.content);
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(use.name).toBe("get_weather");
    expect(own!.thinking).toContain(`[${use.id}]`);
    expect(own!.signature).toMatch(/=$/);
    const reqs = await control("requests");
    expect(reqs.length).toBe(2);
    // the hidden round went back upstream with the thinking the client now sees first, unchanged
    expect(sentThinking(reqs[1])).toEqual([[{ type: "thinking", thinking: hidden!.thinking, signature: hidden!.signature }]]);
    messages.push(
      { role: "assistant", content: first.content },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: use.id, content: "rain" }],
      },
    );
    const done = await client.messages.create({ ...base, system, messages });
    expect(done.content.map((b) => b.type)).toEqual(["thinking", "text"]);
    expect(done.content[1]).toMatchObject({ text: expect.stringContaining("Done with get_weather: rain") });
    const all = await control("requests");
    expect(all.length).toBe(3);
    expect(sentThinking(all[2]).map((t) => t.map((b: Json) => b.signature))).toEqual([[hidden!.signature], [own!.signature]]);
    expectDeferralApplied(all);
    expectAppendOnlyAsSent(all);
  });

  it("streamed: thinking_delta and signature_delta in Anthropic's order, finalMessage() holds the thinking; the next streamed turn is accepted", async () => {
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "get the weather" }];
    const system = "You help (thinking, stream).";
    const stream = client.messages.stream({ ...base, system, messages });
    const events: string[] = [];
    let thought = "";
    stream.on("streamEvent", (e) => {
      events.push(
        e.type === "content_block_delta" ? e.delta.type : e.type === "content_block_start" ? `start:${e.content_block.type}` : e.type,
      );
    });
    stream.on("thinking", (delta) => (thought += delta));
    const first = await stream.finalMessage();
    const thinkingRun = ["start:thinking", "thinking_delta", "signature_delta", "content_block_stop"];
    const squeezed = events.filter((e, i) => e !== "thinking_delta" || events[i - 1] !== "thinking_delta");
    // the SDK passes no ping on; the hidden round's thinking, then the answering round's, then the search and tool_use blocks
    expect(squeezed.slice(0, 1 + 2 * thinkingRun.length + 1)).toEqual([
      "message_start",
      ...thinkingRun,
      ...thinkingRun,
      "start:server_tool_use",
    ]);
    expect(events.at(-1)).toBe("message_stop");
    const blocks = thoughts(first.content);
    expect(blocks.length).toBe(2);
    expect(thought).toBe(blocks.map((b) => b.thinking).join(""));
    const use = first.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use")!;
    expect(blocks[1]!.thinking).toContain(`[${use.id}]`);
    expect(blocks.every((b) => b.signature.length > 20)).toBe(true);
    messages.push(
      { role: "assistant", content: first.content },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: use.id, content: "sun" }],
      },
    );
    const done = await client.messages.stream({ ...base, system, messages }).finalMessage();
    expect(done.content.map((b) => b.type)).toEqual(["thinking", "text"]);
    expect(done.content[1]).toMatchObject({ text: expect.stringContaining("Done with get_weather: sun") });
    const reqs = await control("requests");
    expect(sentThinking(reqs[2]).map((t) => t.map((b: Json) => b.signature))).toEqual(blocks.map((b) => [b.signature]));
    expectAppendOnlyAsSent(reqs);
  });

  it("the client's own history with thinking (no hidden round, nothing spliced) reaches the upstream unchanged; a changed signature is refused", async () => {
    const builtin = [tool("Bash"), { ...tool("ToolSearch"), input_schema: { type: "object", properties: { query: { type: "string" } } } }];
    const messages: Json[] = [{ role: "user", content: "<system-reminder>\nmcp__shop__get_weather\n</system-reminder>\nget the weather" }];
    const body = { system: "You are Claude Code (thinking).", tools: builtin, thinking };
    const first = await post({ ...body, messages });
    expect(first.body.content.map((b: Json) => b.type)).toEqual(["thinking", "tool_use"]);
    const use = first.body.content[1];
    const result = { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "nothing found" }] };
    const forged = [{ ...first.body.content[0], signature: "forged" }, use];
    const refused = await post({ ...body, messages: [...messages, { role: "assistant", content: forged }, result] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.type).toBe("invalid_request_error");
    const second = await post({ ...body, messages: [...messages, { role: "assistant", content: first.body.content }, result] });
    expect(second.status).toBe(200);
    const reqs = await control("requests");
    expect(reqs.at(-1).raw.messages[1].content).toEqual(first.body.content);
  });
});
