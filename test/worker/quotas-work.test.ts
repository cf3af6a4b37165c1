// Quotas count work, not HTTP requests (issue 39 R2-L8; worker/quotas.ts): each JSON-RPC message of
// an /mcp batch is a request, each call to an upstream MCP server a request causes is an upstream
// call, and reads of URIs a session was never handed do not list its servers again each time.
// tenant-m may make 10 requests a minute per key; tenant-u may cause 3 upstream calls a minute and
// open 4 sessions an hour (wrangler.toml [env.test.vars.QUOTAS]). Each refusal is checked as the
// client sees it: 429 with retry-after and JSON-RPC -32000 on both MCP eras, 429 on REST, a tool
// error for a call refused inside a request that was admitted, and the audit rows; the fixture
// server (edge-setup.ts) says what reached it.
import { describe, expect, it } from "vitest";
import {
  AUTH_A,
  callWith,
  clearOfBoundary,
  EDGE,
  fixture,
  fixtureCalls,
  KEY_M,
  KEY_U,
  upstreamOf,
  modelLane,
  type Json,
} from "./helpers.ts";
import { connect, initialize, rpc } from "./mcp-rig.ts";

const AUTH_M = { authorization: `Bearer ${KEY_M}` };
const AUTH_U = { authorization: `Bearer ${KEY_U}` };
const V = "2026-07-28";
const UPSTREAM_REFUSED =
  /^this API key reached its quota of 3 calls to upstream MCP servers a minute \(QUOTAS\.upstreamCallsPerKeyPerMinute\); retry in \d+ s$/;

/** callTool of the fixture's counter_add, as message `id` of a 2025-era session. */
const add = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "callTool", arguments: { name: "mcp__fixture__counter_add", arguments: { n: 1 } } },
});

/** A 2026-07-28 request (the `_meta` envelope and its headers) as `client`. */
function modern(method: string, params: Record<string, unknown>, client: { name: string; version: string }) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientInfo": client,
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const body = { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } };
  const headers: Record<string, string> = { "mcp-protocol-version": V, "mcp-method": method };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  return { body, headers };
}

const retryAfter = (h: Headers) => Number(h.get("retry-after"));
const texts = (messages: Json[]) => messages.map((m) => m.result.content[0].text as string);

describe("each JSON-RPC message counts", () => {
  it("a 2025-03-26 batch is admitted whole or refused whole (429, -32000, retry-after); a 2026-07-28 request is refused alike", async () => {
    await clearOfBoundary(60_000, 15_000);
    const init = await rpc(initialize("2025-03-26"), AUTH_M); // 1 request
    expect(init.status).toBe(200);
    const sid = init.headers.get("mcp-session-id")!;
    const batch = (ids: number[]) => rpc(ids.map(add), { ...AUTH_M, "mcp-session-id": sid });

    const five = await batch([1, 2, 3, 4, 5]); // 5: 6 used
    expect(five.status).toBe(200);
    expect(texts(five.messages).sort()).toEqual(["total: 1", "total: 2", "total: 3", "total: 4", "total: 5"]);

    // 5 more would make 11: the HTTP request takes its unit (7 used), its other 4 messages find 3 left
    const refused = await batch([6, 7, 8, 9, 10]);
    expect(refused.status).toBe(429);
    expect(refused.messages[0]).toMatchObject({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: expect.stringMatching(
          /quota of 10 requests a minute .*: a batch of 5 messages counts 5 requests, one per JSON-RPC message;/,
        ),
      },
    });
    expect(retryAfter(refused.headers)).toBeGreaterThanOrEqual(1);
    expect(retryAfter(refused.headers)).toBeLessThanOrEqual(60);

    // none of it ran: the server's counter goes on from 5; these 3 use the window up (10)
    const three = await batch([11, 12, 13]);
    expect(three.status).toBe(200);
    expect(texts(three.messages).sort()).toEqual(["total: 6", "total: 7", "total: 8"]);

    const single = await rpc({ jsonrpc: "2.0", id: 14, method: "tools/list" }, { ...AUTH_M, "mcp-session-id": sid });
    expect(single.status).toBe(429);
    expect(single.messages[0].error.code).toBe(-32000);
    expect(retryAfter(single.headers)).toBeGreaterThanOrEqual(1);

    const m = modern("tools/list", {}, { name: "quota-2026", version: "1" });
    const stateless = await rpc(m.body, { ...AUTH_M, ...m.headers });
    expect(stateless.status).toBe(429);
    expect(stateless.messages[0]).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/quota of 10 requests a minute/) },
    });
    expect(retryAfter(stateless.headers)).toBeGreaterThanOrEqual(1);
  });
});

describe("each upstream call counts", () => {
  it("past 3 upstream calls a minute: a batch's later calls, a resource read, a REST call, an edge round and a 2026 call are refused, audited, and never reach the server", async () => {
    await clearOfBoundary(60_000, 20_000);
    const init = await rpc(initialize("2025-03-26"), AUTH_U); // session 1 of 4
    const sid = init.headers.get("mcp-session-id")!;
    const headers = { ...AUTH_U, "mcp-session-id": sid };

    // one HTTP request, five upstream calls: three run, two are tool errors the model can read
    const r = await rpc([1, 2, 3, 4, 5].map(add), headers);
    expect(r.status).toBe(200);
    const results = r.messages.map((m) => m.result);
    expect(
      results
        .filter((x) => !x.isError)
        .map((x) => x.content[0].text)
        .sort(),
    ).toEqual(["total: 1", "total: 2", "total: 3"]);
    const errors = results.filter((x) => x.isError).map((x) => String(x.content[0].text).replace(/^Error: /, ""));
    expect(errors).toHaveLength(2);
    for (const e of errors) expect(e).toMatch(UPSTREAM_REFUSED);
    expect((await fixtureCalls(await upstreamOf(sid, "fixture", "tenant-u"))).map((c) => c.tool)).toEqual(Array(3).fill("counter_add"));

    // listing the servers for a URI never handed out is refused too (-32000), and audited
    const read = await rpc({ jsonrpc: "2.0", id: 6, method: "resources/read", params: { uri: "demo://not/handed/out" } }, headers);
    expect(read.messages[0].error).toMatchObject({
      code: -32000,
      message: expect.stringContaining("quota of 3 calls to upstream MCP servers"),
    });

    const audit = (await callWith(EDGE, "GET", `/v1/sessions/${sid}/audit?limit=100`, undefined, AUTH_U)).body.events as Json[];
    const calls = audit.filter((e) => e.type === "call").map((e) => e.outcome);
    expect(calls.sort()).toEqual(["ok", "ok", "ok", "rate_limited", "rate_limited"]);
    expect(audit.find((e) => e.outcome === "rate_limited" && e.type === "call").detail).toMatch(UPSTREAM_REFUSED);
    expect(audit.filter((e) => e.type === "resource").map((e) => [e.tool, e.outcome])).toEqual([["demo://not/handed/out", "rate_limited"]]);

    // REST: one call per request, so the request itself is refused: 429 with retry-after
    const s = (await callWith(EDGE, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" }, AUTH_U)).body.id as string; // 2 of 4
    const rest = await callWith(EDGE, "POST", `/v1/sessions/${s}/tools/mcp__fixture__counter_add/call`, { arguments: { n: 1 } }, AUTH_U);
    expect(rest.status).toBe(429);
    expect(rest.body.error).toMatchObject({ code: "rate_limited", message: expect.stringMatching(UPSTREAM_REFUSED) });
    expect(retryAfter(rest.headers)).toBeGreaterThanOrEqual(1);
    const restRows = (await callWith(EDGE, "GET", `/v1/sessions/${s}/audit`, undefined, AUTH_U)).body.events as Json[];
    expect(restRows.filter((e) => e.type === "call").map((e) => [e.tool, e.outcome])).toEqual([
      ["mcp__fixture__counter_add", "rate_limited"],
    ]);

    // an edge round of the chat endpoint: the model is given the refusal as the tool's result
    const marker = crypto.randomUUID();
    const lane = modelLane();
    const chat = await callWith(
      { ...EDGE, OPENAI_BASE_URL: lane, OPENAI_API_KEY: "test" },
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [{ role: "user", content: `call the counter_add fixture tool [args {"n":1}] (${marker})` }] },
      { ...AUTH_U, "x-toolsearch-execution": "edge" },
    ); // session 3 of 4
    expect(chat.status).toBe(200);
    expect(chat.body.choices[0].message.content).toMatch(/^Done with mcp__fixture__counter_add: Error: this API key reached its quota/);
    const seen = (await (await fetch(`${lane.replace(/\/v1$/, "")}/_control/requests`)).json()) as Json[];
    const last = seen
      .filter((q) => JSON.stringify(q.body.messages).includes(marker))
      .at(-1)!
      .body.messages.at(-1);
    expect(last.role).toBe("tool");
    expect(String(last.content).replace(/^Error: /, "")).toMatch(UPSTREAM_REFUSED);

    // 2026-07-28: the call is refused inside an admitted request, so a tool error (HTTP 200)
    const m = modern(
      "tools/call",
      { name: "callTool", arguments: { name: "mcp__fixture__counter_add", arguments: { n: 1 } } },
      {
        name: "quota-2026",
        version: "1",
      },
    ); // session 4 of 4
    const modernCall = await rpc(m.body, { ...AUTH_U, ...m.headers });
    expect(modernCall.status).toBe(200);
    expect(modernCall.messages[0].result.isError).toBe(true);
    expect(String(modernCall.messages[0].result.content[0].text).replace(/^Error: /, "")).toMatch(UPSTREAM_REFUSED);

    // another 2026 client needs a fifth session: the sessions quota is the route's 429 (-32000), not an error inside a 200
    const other = modern(
      "tools/call",
      { name: "callTool", arguments: { name: "mcp__fixture__counter_get", arguments: {} } },
      {
        name: "quota-2026-other",
        version: "1",
      },
    );
    const fifth = await rpc(other.body, { ...AUTH_U, ...other.headers });
    expect(fifth.status).toBe(429);
    expect(fifth.messages[0]).toMatchObject({ error: { code: -32000, message: expect.stringMatching(/quota of 4 sessions an hour/) } });
    expect(retryAfter(fifth.headers)).toBeGreaterThanOrEqual(1);
  });
});

describe("reads of unknown URIs", () => {
  it("list each server once a minute, not once per read; the client's own resources/list still asks them all", async () => {
    const lists = async () => ((await fixture("stats")).requests as Json[]).filter((q) => q.method === "resources/list").length;
    const before = await lists();
    const { client } = await connect("", AUTH_A); // the edge catalog's servers: everything, fixture, legacy
    for (let i = 0; i < 20; i++)
      await expect(client.readResource({ uri: `demo://never/handed/out/${i}` })).rejects.toMatchObject({ code: -32002 });
    expect((await lists()) - before).toBe(1);
    await client.listResources();
    expect((await lists()) - before).toBe(2);
    await client.close();
  });
});
