// A deployment's settings as its operator meets them: a malformed SERVERS breaks only what needs
// it (edge calls, edge chat, the MCP gateway) with a message naming it, shows in GET /healthz and
// is logged once, not per request; a SERVERS entry that names no server of the pinned catalog
// (a misspelling) is named in /healthz and the log instead of passing silently. A misspelled key
// of POLICY, QUOTAS or a SERVERS entry, or a wrong value, stops every route with a 503 naming it.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "./main.ts";
import { callWith, EDGE, edgeSession, request, type Json } from "./helpers.ts";

const BAD: Record<string, unknown> = { ...EDGE, SERVERS: '{"everything": {"url": "http://127.0.0.1:1/mcp",}' };
const NOT_JSON = "SERVERS: not valid JSON";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "settings-test", version: "1" } },
};

afterEach(() => vi.restoreAllMocks());

describe("a malformed SERVERS", () => {
  it("leaves the page, /healthz, the catalog and sessions working; /healthz says what is wrong", async () => {
    const health = await callWith(BAD, "GET", "/healthz"); // with a key: without one no server is named (L8)
    expect(health.status).toBe(200);
    expect(health.body.ok).toBe(false);
    expect(health.body.problems).toEqual([expect.stringContaining(NOT_JSON)]);
    expect(health.body.problems[0]).toContain("edge execution and /mcp are off until it is fixed");
    expect((await callWith(BAD, "GET", "/", undefined, { authorization: "" })).status).toBe(200);
    expect((await callWith(BAD, "GET", "/v1/catalog")).status).toBe(200);
    const created = await callWith(BAD, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" });
    expect(created.status).toBe(201);
    const search = await callWith(BAD, "POST", `/v1/sessions/${created.body.id}/tool-search`, { query: "select:mcp__everything__echo" });
    expect(search.body.loaded).toEqual(["mcp__everything__echo"]);
  });

  it("refuses what needs SERVERS with a 500 that names it: a tool call, an edge chat, an MCP initialize", async () => {
    const s = await edgeSession();
    const call = await callWith(BAD, "POST", `/v1/sessions/${s.id}/tools/mcp__everything__echo/call`, { arguments: { message: "x" } });
    expect(call.status).toBe(500);
    expect(call.body.error).toMatchObject({ code: "internal", message: expect.stringContaining(NOT_JSON) });

    const chat = await callWith(
      BAD,
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [{ role: "user", content: "echo x" }] },
      { "x-toolsearch-execution": "edge" },
    );
    expect(chat.status).toBe(500);
    expect(chat.body.error.message).toContain(NOT_JSON);

    const mcp = await callWith(BAD, "POST", "/mcp", initialize, { accept: "application/json, text/event-stream" });
    expect(mcp.status).toBe(500);
    expect(mcp.body.error).toMatchObject({ code: -32603, message: expect.stringContaining(NOT_JSON) });
  });

  it("is logged once per isolate, at its first request; a refused route logs its code and message", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const vars = { ...env, ...BAD } as Env;
    const fetch = async (path: string) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch(request("GET", path), vars, ctx);
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    for (const path of ["/healthz", "/v1/catalog", "/healthz"]) expect(await fetch(path)).toBe(200);
    const logged = errors.mock.calls.map((args) => String(args[0]));
    expect(logged.filter((l) => l.startsWith("config: SERVERS: not valid JSON"))).toHaveLength(1);

    const ctx = createExecutionContext();
    const res = await worker.fetch(request("POST", "/mcp", initialize, { accept: "application/json, text/event-stream" }), vars, ctx);
    expect(res.status).toBe(500);
    expect(errors.mock.calls.map((args) => String(args[0]))).toContainEqual(
      expect.stringMatching(/^POST \/mcp: internal: SERVERS: not valid JSON/),
    );
  });
});

describe("a SERVERS entry the catalog does not know", () => {
  const misspelled = (): Record<string, unknown> => {
    const servers = JSON.parse(env.SERVERS as unknown as string) as Json;
    return { ...EDGE, SERVERS: JSON.stringify({ ...servers, everythng: servers.everything }) };
  };

  it("is named in /healthz, with the catalog's servers; nothing breaks", async () => {
    const h = await callWith(misspelled(), "GET", "/healthz");
    expect(h.body.ok).toBe(true);
    expect(h.body.problems).toEqual([]);
    expect(h.body.warnings).toEqual([
      "SERVERS: everythng is not a server of the pinned catalog (its servers: everything, fixture, legacy); no call reaches it",
    ]);
    const healthy = await callWith(EDGE, "GET", "/healthz");
    expect(healthy.body).toMatchObject({ ok: true, problems: [], warnings: [] });
  });

  it("is logged as a warning once", async () => {
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    const vars = { ...env, ...misspelled() } as Env;
    for (let i = 0; i < 3; i++) {
      const ctx = createExecutionContext();
      await worker.fetch(request("GET", "/healthz"), vars, ctx);
      await waitOnExecutionContext(ctx);
    }
    expect(warnings.mock.calls.filter((args) => String(args[0]).includes("everythng"))).toHaveLength(1);
  });
});

describe("a misspelled key of POLICY, QUOTAS or SERVERS", () => {
  const servers = JSON.parse(env.SERVERS as unknown as string) as Json;
  const cases: Array<[string, Record<string, unknown>, string]> = [
    [
      "POLICY",
      { POLICY: { ...(env.POLICY as object), acess: { disabled: ["*"] } } },
      "POLICY.acess is not a setting (did you mean access?)",
    ],
    [
      "POLICY, deep in a tenant's rules",
      { POLICY: { ...(env.POLICY as object), access: { tenants: { "tenant-a": { dney: ["*"] } } } } },
      "POLICY.access.tenants.tenant-a.dney is not a setting (did you mean deny?)",
    ],
    [
      "QUOTAS",
      { QUOTAS: { ...(env.QUOTAS as object), requestsPerKeyPerMinut: 1 } },
      "QUOTAS.requestsPerKeyPerMinut is not a setting (did you mean requestsPerKeyPerMinute?)",
    ],
    [
      "SERVERS",
      { ...EDGE, SERVERS: JSON.stringify({ ...servers, everything: { ...servers.everything, tiemoutMs: 5 } }) },
      "SERVERS.everything.tiemoutMs is not a setting (did you mean timeoutMs?)",
    ],
  ];

  it.each(cases)("%s: every route, /healthz too, is a 503 config_invalid naming the key and the closest one", async (_, vars, message) => {
    const error = { code: "config_invalid", message };
    for (const [method, path, body] of [
      ["GET", "/healthz"],
      ["GET", "/v1/catalog"],
      ["POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" }],
    ] as const) {
      const r = await callWith(vars, method, path, body);
      expect([path, r.status, r.body.error]).toEqual([path, 503, error]);
    }
    const page = await callWith(vars, "GET", "/", undefined, { authorization: "" });
    expect(page.status).toBe(503);
  });

  it("without an API key the answer names no setting, and points to the log, which names it", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const [, vars, message] = cases[1]!;
    const r = await callWith(vars, "GET", "/healthz", undefined, { authorization: "" });
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("config_invalid");
    expect(r.text).not.toContain("tenant-a");
    expect(r.body.error.message).toContain("the Worker's log");
    expect(errors.mock.calls.map((args) => String(args[0]))).toContainEqual(`GET /healthz: config_invalid: ${message}`);
  });

  it("a wrong value is named too: POLICY.listingBudget past 1, a QUOTAS limit below 0", async () => {
    const budget = await callWith({ POLICY: { ...(env.POLICY as object), listingBudget: 2 } }, "GET", "/healthz");
    expect(budget.status).toBe(503);
    expect(budget.body.error.message).toBe("POLICY.listingBudget: must be a share of the context window from 0 to 1");
    const quota = await callWith({ QUOTAS: { responsesPerSession: -1 } }, "GET", "/healthz");
    expect(quota.body.error).toMatchObject({
      code: "config_invalid",
      message: expect.stringMatching(/^QUOTAS\.responsesPerSession: .*0 means no limit/),
    });
  });
});
