// Edge execution inside workerd: POST /v1/sessions/:id/tools/:name/call against real MCP servers
// over Streamable HTTP (server-everything, and the stateful fault fixture), from the session's
// Durable Object. Results, argument checks, kept-alive upstream sessions, expiry, faults, result
// cap, secrets, and closing the upstream session when the session ends. Other test files call the
// same fixture server meanwhile, so its records are read per MCP session (upstreamOf).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { describe, expect, it } from "vitest";
const EDGE_TOKEN = env.EDGE_TEST_TOKEN;
import {
  callTool,
  callWith,
  d1Rows,
  EDGE,
  edgeSession,
  fixture,
  fixtureCalls,
  newSession,
  sessionObject,
  upstreamOf,
  type Json,
} from "./helpers.ts";

const sessionAudit = async (id: string) => (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=500`)).body.events as Json[];

describe("a call", () => {
  it("runs a tool that was never loaded, loads it, and answers its CallToolResult", async () => {
    const s = await edgeSession();
    const r = await callTool(s.id, "mcp__everything__echo", { message: "hello edge" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ content: [{ type: "text", text: "Echo: hello edge" }] });
    const state = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}`)).body;
    expect(state.activations).toEqual(["mcp__everything__echo"]);
    const events = await sessionAudit(s.id);
    expect(events.map((e: Json) => [e.type, e.tool, e.outcome])).toEqual([
      ["call", "mcp__everything__echo", "ok"],
      ["activation", "mcp__everything__echo", "ok"],
    ]);
    expect(events[0]).toMatchObject({
      server: "everything",
      decision: "allow",
      argsBytes: JSON.stringify({ message: "hello edge" }).length,
      argsDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    expect(events[0].resultBytes).toBeGreaterThan(10);
    expect(events[0]).not.toHaveProperty("arguments");
  });

  it("passes image, resource and structured content through as the server sent them", async () => {
    const s = await edgeSession();
    const image = await callTool(s.id, "mcp__everything__get-tiny-image", {});
    expect(image.body.content.map((c: Json) => c.type)).toContain("image");
    expect(image.body.content.find((c: Json) => c.type === "image")).toMatchObject({
      mimeType: "image/png",
      data: expect.stringMatching(/^iVBOR/),
    });
    const structured = await callTool(s.id, "mcp__everything__get-structured-content", { location: "New York" });
    expect(structured.status).toBe(200);
    expect(structured.body.structuredContent).toMatchObject({ temperature: expect.any(Number) });
    const links = await callTool(s.id, "mcp__everything__get-resource-links", { count: 2 });
    expect(links.body.content.filter((c: Json) => c.type === "resource_link")).toHaveLength(2);
  });

  it("reaches a server that speaks only the legacy HTTP+SSE transport", async () => {
    const s = await edgeSession();
    const r = await callTool(s.id, "mcp__legacy__get-sum", { a: 2, b: 3 });
    expect(r).toMatchObject({ status: 200, body: { content: [{ type: "text", text: "The sum of 2 and 3 is 5." }] } });
    expect(await upstreamOf(s.id, "legacy")).toBeNull(); // an SSE session lives as long as its stream: none is stored
  });

  it("a tool's own failure is 200 with isError; unknown names are 404 with the closest names", async () => {
    const s = await edgeSession();
    const r = await callTool(s.id, "mcp__fixture__fail", {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ isError: true, content: [{ type: "text", text: "the fail tool failed, as it always does" }] });
    expect((await sessionAudit(s.id))[0]).toMatchObject({ type: "call", outcome: "tool_error" });
    const unknown = await callTool(s.id, "mcp__fixture__counter_ad", { n: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toMatch(/closest names: mcp__fixture__counter_add/);
  });

  it("arguments that fail the schema are a 400 naming the field, and nothing reaches the server", async () => {
    const s = await edgeSession();
    for (const args of [{ n: "three" }, {}, { n: 1, extra: true }]) {
      const r = await callTool(s.id, "mcp__fixture__counter_add", args);
      expect(r.status, JSON.stringify(args)).toBe(400);
      expect(r.body.error.code).toBe("bad_request");
      expect(r.body.error.message).toMatch(/^invalid arguments for mcp__fixture__counter_add: arguments/);
    }
    expect((await callTool(s.id, "mcp__fixture__counter_add", { n: "three" })).body.error.message).toContain("/n");
    expect(await upstreamOf(s.id)).toBeNull(); // nothing was ever sent: no MCP session was opened
    const bad = await callWith(EDGE, "POST", `/v1/sessions/${s.id}/tools/mcp__fixture__counter_add/call`, { arguments: [1] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe("arguments: must be an object");
    expect((await sessionAudit(s.id)).filter((e: Json) => e.type === "call").map((e: Json) => e.outcome)).toEqual(
      Array(4).fill("invalid_arguments"),
    );
  });

  it("a bad request names what is wrong: unknown field, bad name, unknown session", async () => {
    const s = await edgeSession();
    const extra = await callWith(EDGE, "POST", `/v1/sessions/${s.id}/tools/mcp__everything__echo/call`, {
      arguments: { message: "x" },
      timeout: 5,
    });
    expect(extra.body.error).toEqual({ code: "bad_request", message: 'unknown field "timeout"' });
    const name = await callTool(s.id, "mcp.everything.echo", { message: "x" });
    expect(name.body.error.message).toBe("name: must be an exposed tool name (letters, digits, _ and -, at most 64)");
    expect((await callTool(`ses_${"A".repeat(32)}`, "mcp__everything__echo", { message: "x" })).status).toBe(404);
  });

  it("the session reports the calls the Worker ran, whatever its execution mode; refused arguments ran nothing", async () => {
    const s = await edgeSession(undefined, undefined, { execution: "client" });
    const read = async () => (await callWith(EDGE, "GET", `/v1/sessions/${s.id}`)).body;
    expect(await read()).toMatchObject({ execution: "client", workerCalls: [] });
    expect((await callTool(s.id, "mcp__everything__echo", { message: 1 })).status).toBe(400);
    expect((await read()).workerCalls).toEqual([]);
    for (const message of ["a", "b"]) expect((await callTool(s.id, "mcp__everything__echo", { message })).status).toBe(200);
    expect(await read()).toMatchObject({ execution: "client", workerCalls: [{ via: "rest", calls: 2 }] });
  });

  it("a server without a SERVERS entry stays client-executed: 409 not_executable", async () => {
    const s = await newSession();
    const r = await callWith({}, "POST", `/v1/sessions/${s.id}/tools/mcp__shop__get_order/call`, { arguments: { order_id: "1" } });
    expect(r.status).toBe(409);
    expect(r.body.error).toEqual({ code: "not_executable", message: "server shop has no SERVERS entry: its tools are run by the client" });
  });
});

describe("kept-alive upstream sessions", () => {
  it("one MCP session per (session, server): state carries across calls and is not shared", async () => {
    const [a, b] = [await edgeSession(), await edgeSession()];
    const totals = [];
    for (const n of [2, 3]) totals.push((await callTool(a.id, "mcp__fixture__counter_add", { n })).body.structuredContent.total);
    totals.push((await callTool(b.id, "mcp__fixture__counter_add", { n: 10 })).body.structuredContent.total);
    expect(totals).toEqual([2, 5, 10]);
    expect((await callTool(a.id, "mcp__fixture__counter_get", {})).body.content[0].text).toBe("total: 5");
    const [ua, ub] = [await upstreamOf(a.id), await upstreamOf(b.id)];
    expect(ua).not.toBe(ub);
    expect((await fixtureCalls(ua)).map((c) => c.tool)).toEqual(["counter_add", "counter_add", "counter_get"]);
    expect((await fixtureCalls(ub)).map((c) => c.tool)).toEqual(["counter_add"]);
  });

  it("concurrent first calls share one upstream session", async () => {
    const s = await edgeSession();
    const results = await Promise.all(Array.from({ length: 6 }, () => callTool(s.id, "mcp__fixture__counter_add", { n: 1 })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    // each MCP session has its own counter: 6 means all six calls reached one
    expect((await callTool(s.id, "mcp__fixture__counter_get", {})).body.content[0].text).toBe("total: 6");
    expect(await fixtureCalls(await upstreamOf(s.id))).toHaveLength(7);
  });

  it("a session the server expired is re-initialized, and the result says so", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_add", { n: 4 });
    const before = await upstreamOf(s.id);
    await fixture("expire", {});
    const r = await callTool(s.id, "mcp__fixture__counter_add", { n: 1 });
    expect(r.status).toBe(200);
    expect(r.body.content[0].text).toBe("total: 1");
    expect(r.body.content.at(-1).text).toMatch(/the server had ended this session's MCP session; a new one was started/);
    const after = await upstreamOf(s.id);
    expect(after).not.toBe(before);
    expect((await fixtureCalls(after)).map((c) => c.tool)).toEqual(["counter_add"]);
    expect((await sessionAudit(s.id))[0]).toMatchObject({ outcome: "ok", detail: expect.stringMatching(/^reconnected: /) });
    expect((await callTool(s.id, "mcp__fixture__counter_add", { n: 1 })).body.content).toEqual([{ type: "text", text: "total: 2" }]);
  });

  it("deleting the session closes its upstream sessions with an HTTP DELETE", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_add", { n: 1 });
    const session = await upstreamOf(s.id);
    expect((await callWith(EDGE, "DELETE", `/v1/sessions/${s.id}`)).status).toBe(204);
    expect((await fixture("stats")).deletes).toContain(session);
  });

  it("a session that expires closes its upstream sessions too", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_add", { n: 1 });
    const session = await upstreamOf(s.id);
    const stub = sessionObject(s.id);
    await runInDurableObject(stub, (_o: SessionDO, state) => void state.storage.sql.exec("UPDATE session SET last_used_at = 0"));
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await callWith(EDGE, "GET", `/v1/sessions/${s.id}`)).status).toBe(404);
    expect((await fixture("stats")).deletes).toContain(session);
  });
});

describe("faults", () => {
  it("a server slower than its timeoutMs is a 504, audited as timeout, and the server is told to cancel", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_get", {});
    const upstream = await upstreamOf(s.id);
    const r = await callTool(s.id, "mcp__fixture__slow", { ms: 8000 });
    expect(r.status).toBe(504);
    expect(r.body.error).toEqual({
      code: "upstream_timeout",
      message: "server fixture did not answer mcp__fixture__slow within 3000 ms; the request was cancelled on the server",
    });
    expect((await sessionAudit(s.id))[0]).toMatchObject({ type: "call", outcome: "timeout" });
    // the server saw notifications/cancelled for the call: its tool stopped instead of running on
    const cancelled = ((await fixture("stats")).cancelled as Json[]).filter((c) => c.session === upstream);
    expect(cancelled).toEqual([{ tool: "slow", session: upstream, reason: expect.stringMatching(/timed out/i) }]);
  });

  it("a response cut off mid-call is a 502; the next call works", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_add", { n: 1 });
    const r = await callTool(s.id, "mcp__fixture__crash", {});
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe("server_failed");
    expect((await sessionAudit(s.id))[0]).toMatchObject({ outcome: "transport_error" });
    expect((await callTool(s.id, "mcp__fixture__counter_get", {})).body.content[0].text).toBe("total: 1");
  });

  it("a 500 from the server is a 502 naming the server; the session survives it", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_add", { n: 7 });
    await fixture("fail500", { count: 1, session: await upstreamOf(s.id) });
    const r = await callTool(s.id, "mcp__fixture__counter_get", {});
    expect(r.status).toBe(502);
    expect(r.body.error.message).toBe(
      `server fixture failed on mcp__fixture__counter_get: HTTP 500: Error POSTing to endpoint: {"error":"injected failure"}`,
    );
    expect((await callTool(s.id, "mcp__fixture__counter_get", {})).body.content[0].text).toBe("total: 7");
  });

  it("a huge result is capped, with a note saying what was cut", async () => {
    const s = await edgeSession();
    const r = await callTool(s.id, "mcp__fixture__huge", { bytes: 1_000_000 });
    expect(r.status).toBe(200);
    expect(r.text.length).toBeLessThanOrEqual(Number(env.CALL_RESULT_MAX_BYTES));
    expect(r.body.content.map((c: Json) => c.type)).toEqual(["text", "text"]);
    expect(r.body.content[0].text).toMatch(/^x{200000,}$/);
    expect(r.body.content[1].text).toMatch(
      /^\[toolsearch: result capped: the server sent 10001\d\d bytes, the limit is 262144; 2 content block\(s\) cut or dropped\]$/,
    );
    expect((await sessionAudit(s.id))[0]).toMatchObject({ outcome: "ok", detail: "result capped", resultBytes: expect.any(Number) });
    expect((await sessionAudit(s.id))[0].resultBytes).toBeGreaterThan(1_000_000);
  });
});

describe("secrets", () => {
  it("${NAME} headers are resolved from the Worker's secrets and never appear in a response or audit row", async () => {
    const s = await edgeSession();
    const r = await callTool(s.id, "mcp__fixture__whoami", {});
    expect(r.status).toBe(200);
    // the server got the secret; the answer shows it redacted
    expect((await fixtureCalls(await upstreamOf(s.id)))[0]).toMatchObject({ tool: "whoami", authorization: `Bearer ${EDGE_TOKEN}` });
    expect(r.body.content[0].text).toBe("authorization: Bearer [redacted]");
    await callTool(s.id, "mcp__fixture__slow", { ms: 8000 });
    const everything = [
      r.text,
      JSON.stringify(await sessionAudit(s.id)),
      JSON.stringify(await d1Rows()),
      (await callWith(EDGE, "GET", "/v1/audit?limit=500")).text,
    ];
    for (const text of everything) expect(text).not.toContain(EDGE_TOKEN);
  });
});

describe("bounded reads (M6)", () => {
  it("a 50 MB result is not read past the read limit (4 MiB here): the call fails saying so, and the session goes on", async () => {
    const s = await edgeSession();
    const from = ((await fixture("stats")).huge as Json[]).length;
    const r = await callTool(s.id, "mcp__fixture__huge", { bytes: 50_000_000 });
    expect(r.status).toBe(502);
    expect(r.body.error.message).toMatch(/terminated at 4194304 bytes, the read limit/);
    expect((await callTool(s.id, "mcp__fixture__counter_get", {})).status).toBe(200);
    // what the server's socket took (test/fixtures/huge-answer.ts): the limit plus the connection's buffers, not 50 MB
    let seen: Json[] = [];
    for (let i = 0; i < 50; i++, await new Promise((w) => setTimeout(w, 100))) {
      seen = ((await fixture("stats")).huge as Json[]).slice(from).filter((a) => a.method === "tools/call");
      if (seen.length && seen.every((a) => a.finished || a.cancelled)) break;
    }
    expect(seen.map((a) => [a.bytes, a.finished, a.cancelled])).toEqual([[50_000_000, false, true]]);
    expect(seen[0].sent).toBeGreaterThan(4 * 1024 * 1024);
    expect(seen[0].sent).toBeLessThan(32 * 1024 * 1024);
  });
});
