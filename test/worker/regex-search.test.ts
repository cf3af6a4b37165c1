// Anthropic's regex tool search, answered by the Worker (worker/messages/search.ts), attacked as in
// issue 39: a 512 KiB tool description searched with (?i)[^~]{1990}~ (about 2,000 live states per
// character, R2-M4) answers execution_time_exceeded in seconds while another tenant's requests are
// served, and the search names no tool the session's rules deny or disable (R2-L2), the rules
// frozen or deployed now. POST /v1/messages inside workerd, the scripted upstream in Node.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Splice } from "../../worker/core/splice.ts";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_B, callWith, edgeVars, sessionObject, modelLane, type Json } from "./helpers.ts";

const upstream = modelLane();
const vars = { OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_TIMEOUT_MS: "20000", UPSTREAM_MAX_RETRIES: "0" };
const REGEX_TOOL = { type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" };
const user = (content: unknown) => ({ role: "user", content });

/** A Messages request (a conversation of its own) whose model searches with `pattern`. */
function ask(pattern: string, extra: Record<string, unknown> = {}, over: Record<string, unknown> = {}) {
  return callWith({ ...vars, ...over }, "POST", "/v1/messages", {
    model: "claude-sonnet-4-6",
    max_tokens: 1024,
    system: `regex search ${crypto.randomUUID()}`,
    ...extra,
    tools: [REGEX_TOOL, ...((extra.tools as unknown[]) ?? [])],
    messages: [user(`[regex ${pattern}] find a tool`)],
  });
}

/** What the model was told the search found: the tool message of the hidden round the session spliced. */
async function toldModel(r: { headers: Headers }): Promise<string> {
  const id = r.headers.get("x-toolsearch-session")!;
  const rows = await runInDurableObject(sessionObject(id), (_o: SessionDO, state) =>
    state.storage.sql.exec<{ data: string }>("SELECT data FROM splices ORDER BY seq").toArray(),
  );
  const hidden = rows.flatMap((row) => (JSON.parse(row.data) as Splice).hidden);
  return String(hidden.filter((m) => m.role === "tool").at(-1)?.content ?? "");
}

describe("the regex search's cost is bounded (R2-M4)", () => {
  it("a 512 KiB description and (?i)[^~]{1990}~: execution_time_exceeded within seconds; another tenant is served meanwhile", async () => {
    const big = {
      name: "big_tool",
      description: "x".repeat(512 * 1024),
      input_schema: { type: "object", properties: {} },
      defer_loading: true,
    };
    const started = Date.now();
    let done = false;
    const pending = ask("(?i)[^~]{1990}~", { tools: [big] }).finally(() => (done = true));
    // another tenant's catalog requests, one after another, for as long as the search runs
    const waits: number[] = [];
    while (!done) {
      const at = Date.now();
      expect((await callWith({}, "GET", "/v1/catalog", undefined, AUTH_B)).status).toBe(200);
      waits.push(Date.now() - at);
      await new Promise((r) => setTimeout(r, 20));
    }
    const r = await pending;
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.body.content.find((b: Json) => b.type === "tool_search_tool_result")).toMatchObject({
      content: { type: "tool_search_tool_result_error", error_code: "execution_time_exceeded" },
    });
    expect(await toldModel(r)).toMatch(/^Error: execution_time_exceeded: .*budget of 32000000 state visits.*shorter, more specific/);
    expect(waits.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...waits)).toBeLessThan(1000);
  });

  it("a plain pattern over 512 KiB of description runs to its answer, and loads the tool", async () => {
    // words, not one 512 KiB word: the loaded tool goes to the scripted upstream, whose tokenizer is quadratic in a word
    const big = {
      name: "big_tool",
      description: `${"many words ".repeat(48 * 1024)}needle`,
      input_schema: { type: "object" },
      defer_loading: true,
    };
    const r = await ask("(?i)needle", { tools: [big] });
    expect(r.status).toBe(200);
    expect(r.body.content.find((b: Json) => b.type === "tool_search_tool_result")).toMatchObject({
      content: { tool_references: [{ type: "tool_reference", tool_name: "big_tool" }] },
    });
  });
});

describe("the regex search finds only what the session's gate allows (R2-L2)", () => {
  const rules = {
    disabled: ["mcp__fixture__wipe_all"],
    tenants: { "tenant-a": { deny: ["mcp__fixture__whoami", "server:legacy"] } },
  };

  it("no tool denied to the tenant, on a denied server or disabled for everyone is named; an allowed one is", async () => {
    const r = await ask("(?i)wipe_all|whoami|legacy__|counter_get", {}, edgeVars(rules));
    expect(r.status).toBe(200);
    const told = await toldModel(r);
    expect(told).toMatch(/^Loaded 1 tools matching .*\n- mcp__fixture__counter_get: /);
    expect(told.split("\n").slice(1).join("\n")).not.toMatch(/wipe_all|whoami|mcp__legacy__/);
  });

  it("a tool the session could see when it started and the rules deny now is neither loaded nor named", async () => {
    const metadata = { user_id: JSON.stringify({ device_id: "d", account_uuid: "", session_id: `regex-live-${crypto.randomUUID()}` }) };
    const first = await ask("nothing_matches_this", { metadata }, edgeVars());
    const r = await ask("(?i)fixture__whoami", { metadata }, edgeVars({ default: { deny: ["mcp__fixture__whoami"] } }));
    expect(r.status).toBe(200);
    // the same session, created under the rules before
    expect(r.headers.get("x-toolsearch-session")).toBe(first.headers.get("x-toolsearch-session"));
    expect(await toldModel(r)).toBe(`No tool matches the pattern "(?i)fixture__whoami". Try a broader one.`);
  });
});
