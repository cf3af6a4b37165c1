// The Messages endpoint in front of an Anthropic-compatible upstream (ANTHROPIC_BASE_URL; the
// scripted model speaks Messages too), inside workerd. What the upstream receives is checked as
// sent: deferral already applied (no defer_loading, tool_reference, placeholder, nor the beta that
// asks for them), names only until a tool is loaded, then its schema appended; each request extends
// the previous one byte for byte; the client's system blocks keep cache_control, and thinking and
// other betas pass. A header chooses the Chat Completions upstream instead; a header names the one used.
import { beforeEach, describe, expect, inject, it } from "vitest";
import { callWith, type Json } from "./helpers.ts";

const upstream = inject("upstreamUrl");
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
