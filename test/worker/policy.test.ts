// Each policy decision as the API reports it: threshold boundary, weak and unknown models,
// sub-agent profiles, deferral on/off; and what full mode puts in the prompt.
import { describe, expect, it } from "vitest";
import { call } from "./helpers.ts";

const create = (body: Record<string, unknown>) => call("POST", "/v1/sessions", body);

async function deferrableTokens(): Promise<number> {
  // the catalog's per-tool counts: everything but the alwaysLoad tool is deferrable
  const c = (await call("GET", "/v1/catalog")).body;
  return c.tokens.fullInjection - c.tokens.coreTools;
}

describe("defer or not", () => {
  it("threshold: full at exactly 10% of the context window, deferred one token below", async () => {
    const tokens = await deferrableTokens();
    const atLimit = await create({ model: "gpt-4o", contextWindow: tokens * 10 });
    expect(atLimit.body.mode).toBe("full");
    expect(atLimit.body.reason).toBe(`deferrable tools (${tokens} tokens) are at most 10% of gpt-4o's ${tokens * 10}-token context`);
    const over = await create({ model: "gpt-4o", contextWindow: tokens * 10 - 1 });
    expect(over.body.mode).toBe("deferred");
    expect(over.body.reason).toContain("exceed 10%");
  });

  it("the model's own context window by default, and deployment overrides", async () => {
    expect((await create({ model: "gpt-4o" })).body.mode).toBe("full"); // a small catalog in 128k
    const tiny = await create({ model: "tiny-model" }); // wrangler.toml [env.test] models override: 2000 tokens
    expect(tiny.body).toMatchObject({ mode: "deferred", reason: expect.stringContaining("tiny-model's 2000-token context") });
  });

  it.each([
    ["claude-3-haiku-20240307", "model claude-3-haiku is not known to handle tool search"],
    ["meta-llama/Llama-3.1-8B-Instruct", "model llama-3.1-8b is not known to handle tool search"],
    ["deepseek-r1", "model deepseek-r1 is not known to handle tool search"],
  ])("weak model %s gets full mode", async (model, reason) => {
    const r = await create({ model, contextWindow: 1000 });
    expect(r.body).toMatchObject({ mode: "full", reason });
  });

  it("Claude 3.5 Haiku is decided on its own, not lumped with Claude 3 Haiku", async () => {
    const r = await create({ model: "claude-3-5-haiku-20241022", contextWindow: 1000 });
    expect(r.body.mode).toBe("deferred");
  });

  it("unknown model: defer only when the catalog does not fit in half the context", async () => {
    const tokens = await deferrableTokens();
    const fits = await create({ model: "acme-llm-7", contextWindow: tokens * 2 });
    expect(fits.body).toMatchObject({ mode: "full", reason: expect.stringContaining('unknown model "acme-llm-7"') });
    expect((await create({ model: "acme-llm-7", contextWindow: tokens * 2 - 2 })).body.mode).toBe("deferred");
  });

  it("sub-agent profiles get exactly their tools, never deferred; deferral off forces full", async () => {
    const sub = await create({ model: "gpt-5", profile: "refunds-subagent", deferral: "on" });
    expect(sub.body).toMatchObject({
      mode: "full",
      reason: 'profile "refunds-subagent" is a sub-agent profile: its tools are always loaded',
    });
    expect(sub.body.prompt.system).toBe("");
    expect(sub.body.prompt.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      "mcp__shop__refund_order",
      "mcp__shop__get_order",
    ]);
    const off = await create({ model: "gpt-5", deferral: "off", contextWindow: 1000 });
    expect(off.body).toMatchObject({ mode: "full", reason: "deferral is off for this session" });
    const names = off.body.prompt.tools.map((t: { function: { name: string } }) => t.function.name);
    expect(names).toHaveLength(13);
    expect(names).not.toContain("toolSearch");
    const search = await call("POST", `/v1/sessions/${off.body.id}/tool-search`, { query: "refund" });
    expect(search.body.result).toBe("All tools are already loaded in this session; call them directly.");
  });

  it("a profile's core tools follow the alwaysLoad tools and are never deferred", async () => {
    const r = await create({ model: "gpt-5", profile: "support", deferral: "on" });
    expect(r.body.prompt.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual([
      "mcp__shop__search_products",
      "mcp__shop__get_order",
      "toolSearch",
    ]);
    expect(r.body.prompt.system).not.toContain("mcp__shop__get_order\n");
  });
});

describe("bad input on the session routes", () => {
  it.each([
    [{ method: "POST", path: "/v1/sessions", body: "{nope" }, 400, "bad_request", "body is not valid JSON"],
    [{ method: "POST", path: "/v1/sessions", body: "[1]" }, 400, "bad_request", "body must be a JSON object"],
    [
      { method: "POST", path: "/v1/sessions", body: { model: "gpt-4o" }, type: "text/plain" },
      415,
      "unsupported_media_type",
      "content-type must be application/json",
    ],
    [{ method: "POST", path: "/v1/sessions", body: {} }, 400, "bad_request", "model: required"],
    [
      { method: "POST", path: "/v1/sessions", body: { model: "gpt-4o", profile: "nobody" } },
      400,
      "bad_request",
      'unknown profile "nobody"',
    ],
    [
      { method: "POST", path: "/v1/sessions", body: { model: "gpt-4o", deferral: "maybe" } },
      400,
      "bad_request",
      'deferral: must be "auto", "on" or "off"',
    ],
    [
      { method: "POST", path: "/v1/sessions", body: { model: "gpt-4o", contextWindow: 12.5 } },
      400,
      "bad_request",
      "contextWindow: must be an integer",
    ],
    [{ method: "POST", path: "/v1/sessions", body: { model: "gpt-4o", colour: "red" } }, 400, "bad_request", 'unknown field "colour"'],
    [{ method: "PUT", path: "/v1/sessions" }, 405, "method_not_allowed", "PUT is not allowed"],
    [{ method: "GET", path: "/v1/nothing" }, 404, "not_found", "no route GET /v1/nothing"],
    [{ method: "GET", path: "/v1/sessions/not-an-id" }, 404, "not_found", "session not-an-id does not exist"],
    [{ method: "GET", path: `/v1/sessions/ses_${"C".repeat(32)}` }, 404, "not_found", "does not exist"],
    [{ method: "POST", path: `/v1/sessions/ses_${"C".repeat(32)}/tool-search`, body: { query: "x" } }, 404, "not_found", "does not exist"],
  ] as Array<[{ method: string; path: string; body?: unknown; type?: string }, number, string, string]>)(
    "%j -> %i %s",
    async (req, status, code, message) => {
      const headers = req.type ? { "content-type": req.type } : undefined;
      const r = await call(req.method, req.path, req.body, headers);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.message).toContain(message);
      expect(r.headers.get("content-type")).toContain("application/json");
      expect(r.headers.get("x-catalog")).toMatch(/^shop@1\.0\.0#/);
    },
  );

  it("prompt format must be openai or anthropic", async () => {
    const s = (await create({ model: "gpt-4o", deferral: "on" })).body;
    const r = await call("GET", `/v1/sessions/${s.id}/prompt?format=gemini`);
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('format: must be "openai" or "anthropic", got "gemini"');
  });
});
