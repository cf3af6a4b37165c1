// Cancellation by the caller inside workerd, with real Durable Objects, D1 and the fixture MCP server
// (edge-setup.ts), which records each notifications/cancelled it receives. Here the test aborts
// the request's signal itself, as workerd does when a client goes away: under `wrangler dev` it
// does so only once the answer has started (test/node/cancel.test.ts), so the REST call route and
// a non-streamed chat turn are checked here. Also a cancel that reaches the session object before
// the call it names: the call is aborted before its request is sent.
import { createExecutionContext, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "./main.ts";
import {
  callTool,
  d1Rows,
  EDGE,
  edgeSession,
  fixture,
  OPEN_RULES,
  request,
  sessionObject,
  upstreamOf,
  modelLane,
  type Json,
} from "./helpers.ts";

const upstreamModel = modelLane();

/** Send `req` with a signal the test aborts once the fixture runs a slow call in `upstream`. */
async function abortWhileRunning(req: Request, upstream: string | null, vars: Record<string, unknown> = {}): Promise<Response> {
  const ac = new AbortController();
  const pending = worker.fetch(new Request(req, { signal: ac.signal }), { ...env, ...EDGE, ...vars } as Env, createExecutionContext());
  for (let i = 0; i < 150; i++) {
    const calls = (await fixture("stats")).calls as Json[];
    if (calls.some((c) => c.session === upstream && c.tool === "slow")) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  ac.abort();
  return pending;
}

/** The fixture was sent notifications/cancelled for the slow call in `upstream`; the row ends `cancelled`, in D1 too. */
async function expectCancelled(id: string, upstream: string | null, detail: RegExp): Promise<void> {
  let cancelled: Json[] = [];
  for (let i = 0; i < 150 && !cancelled.length; i++) {
    cancelled = ((await fixture("stats")).cancelled as Json[]).filter((c) => c.session === upstream);
    if (!cancelled.length) await new Promise((r) => setTimeout(r, 20));
  }
  expect(cancelled).toEqual([{ tool: "slow", session: upstream, reason: expect.any(String) }]);
  let rows: Json[] = [];
  for (let i = 0; i < 150 && !rows.length; i++) {
    await runDurableObjectAlarm(sessionObject(id));
    rows = await d1Rows("WHERE session = ? AND tool = ? AND type = ?", id, "mcp__fixture__slow", "call");
    if (!rows.length) await new Promise((r) => setTimeout(r, 20));
  }
  expect(rows.map((r) => [r.outcome, r.detail])).toEqual([["cancelled", expect.stringMatching(detail)]]);
}

/** An edge session whose fixture MCP session is open (a first call made), and that session's id. */
async function warmSession(): Promise<{ id: string; upstream: string | null }> {
  const s = await edgeSession(undefined, undefined, { execution: "edge" });
  await callTool(s.id, "mcp__fixture__counter_get", {});
  return { id: s.id, upstream: await upstreamOf(s.id) };
}

describe("the caller goes away", () => {
  it("REST: the request's signal aborts while the call runs: the server is told, the row ends cancelled", async () => {
    const { id, upstream } = await warmSession();
    const req = request("POST", `/v1/sessions/${id}/tools/mcp__fixture__slow/call`, { arguments: { ms: 2500 } });
    await abortWhileRunning(req, upstream);
    await expectCancelled(id, upstream, /^cancelled: the client went away$/);
  });

  it("chat, not streamed: the request's signal aborts while a tool runs at the edge", async () => {
    const { id, upstream } = await warmSession();
    const content = `call the slow fixture tool [args ${JSON.stringify({ ms: 2500 })}]`;
    const req = request(
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [{ role: "user", content }] },
      { "x-toolsearch-session": id },
    );
    await abortWhileRunning(req, upstream, { OPENAI_BASE_URL: upstreamModel, OPENAI_API_KEY: "test" }).catch((e: unknown) => e);
    await expectCancelled(id, upstream, /^cancelled: the client went away$/);
  });
});

describe("MCP 2026-07-28 on /mcp (no session, no notifications/cancelled across requests)", () => {
  const V = "2026-07-28";
  const client = { name: "cancel-2026", version: String(Date.now()) };
  const callOf = (tool: string, args: Json, id: number) =>
    request(
      "POST",
      "/mcp",
      {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: {
          name: "callTool",
          arguments: { name: tool, arguments: args },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": V,
            "io.modelcontextprotocol/clientInfo": client,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      },
      { accept: "application/json, text/event-stream", "mcp-protocol-version": V, "mcp-method": "tools/call", "mcp-name": "callTool" },
    );

  it("the request's signal aborts while callTool runs: the server is told, the row (naming the client) ends cancelled", async () => {
    const warm = await worker.fetch(callOf("mcp__fixture__counter_get", {}, 1), { ...env, ...EDGE } as Env, createExecutionContext());
    expect(warm.status).toBe(200);
    await warm.text();
    // the 2026 view's session is the tenant's stable one: its id and fixture session from the warm call's row
    let id = "";
    for (let i = 0; i < 150 && !id; i++) {
      id =
        (await d1Rows("WHERE tool = ? AND client = ?", "mcp__fixture__counter_get", `${client.name}/${client.version}`))[0]?.session ?? "";
      if (!id) await new Promise((r) => setTimeout(r, 50));
    }
    expect(id).not.toBe("");
    const upstream = await upstreamOf(id);
    await abortWhileRunning(callOf("mcp__fixture__slow", { ms: 2500 }, 2), upstream).catch((e: unknown) => e);
    await expectCancelled(id, upstream, /^cancelled: the client went away$/);
    const rows = await d1Rows("WHERE session = ? AND tool = ? AND type = ?", id, "mcp__fixture__slow", "call");
    expect(rows.map((r) => [r.via, r.client])).toEqual([["mcp", `${client.name}/${client.version}`]]);
  });
});

describe("cancel(key) on the session object", () => {
  it("a cancel that arrives before its call: the call is aborted before its request is sent, and audited cancelled", async () => {
    const { id, upstream } = await warmSession();
    const stub = sessionObject(id);
    expect(await stub.cancel("rest:early", "the client went away")).toBe(0);
    const outcome = await stub.callTool("mcp__fixture__slow", { ms: 2500 }, { via: "rest", key: "rest:early" }, OPEN_RULES);
    expect(outcome).toMatchObject({ ok: false, outcome: "cancelled" });
    expect(((await fixture("stats")).calls as Json[]).filter((c) => c.session === upstream && c.tool === "slow")).toEqual([]);
    await runDurableObjectAlarm(stub);
    const rows = await d1Rows("WHERE session = ? AND tool = ? AND type = ?", id, "mcp__fixture__slow", "call");
    expect(rows.map((r) => [r.outcome, r.detail])).toEqual([["cancelled", "cancelled: cancelled by the client before it started"]]);
  });

  it("a key names only its own calls: another call of the session runs on", async () => {
    const { id } = await warmSession();
    const stub = sessionObject(id);
    const other = stub.callTool("mcp__fixture__slow", { ms: 300 }, { via: "rest", key: "rest:other" }, OPEN_RULES);
    expect(await stub.cancel("rest:unrelated", "the client went away")).toBe(0);
    expect(await other).toMatchObject({ ok: true, outcome: "ok" });
  });
});
