// Faults inside workerd (issue 22): the audit API with D1 failing (a real D1 whose table is
// gone), a missing secret (a config problem, nothing sent), a profile core tool the tenant is
// denied, a session deleted while its call runs on a slow server (the server records the
// cancellation), malformed percent-encoding in a path (through the one handler, after the key
// check), reads or probes of unknown or foreign ids (no Durable Object storage appears), and an
// empty object an older version left, cleaned when its alarm fires.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { migrate } from "../../worker/session/schema.ts";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { call, callTool, callWith, d1Rows, EDGE, edgeSession, fixture, storedObjects, upstreamOf, type Json } from "./helpers.ts";

const sessionAudit = async (id: string) => (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=500`)).body.events as Json[];

describe("wordings and statuses", () => {
  it("with D1 failing, GET /v1/audit is a 503 to retry, and a session's own audit still answers", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__everything__echo", { message: "x" });
    await env.AUDIT.exec("ALTER TABLE audit_events RENAME TO audit_events_down");
    try {
      const r = await call("GET", "/v1/audit");
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe("unavailable");
      expect((await sessionAudit(s.id)).map((e: Json) => e.type)).toEqual(["call", "activation"]);
    } finally {
      await env.AUDIT.exec("ALTER TABLE audit_events_down RENAME TO audit_events");
    }
    expect((await call("GET", "/v1/audit")).status).toBe(200);
  });

  it("a profile core tool the tenant is denied is refused with the access-policy wording", async () => {
    const policy = {
      ...(env.POLICY as object),
      profiles: { default: {}, ops: { coreTools: ["mcp__fixture__whoami"] } },
      access: { default: { deny: ["mcp__fixture__whoami"] } },
    };
    const r = await callWith({ ...EDGE, POLICY: policy }, "POST", "/v1/sessions", { model: "gpt-4o", profile: "ops" });
    expect(r.status).toBe(403);
    expect(r.body.error).toEqual({
      code: "forbidden",
      message: 'profile "ops" names tools not available to this tenant (access policy): mcp__fixture__whoami',
    });
  });

  it("malformed percent-encoding in a path is a JSON 400 with a key, and a 401 without one", async () => {
    const r = await call("GET", "/v1/sessions/%E0%A4%A");
    expect([r.status, r.headers.get("content-type"), r.body.error.code]).toEqual([400, "application/json; charset=utf-8", "bad_request"]);
    const anonymous = await call("GET", "/v1/sessions/%E0%A4%A", undefined, { authorization: "" });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, "unauthorized"]);
  });
});

describe("cancellation", () => {
  it("deleting a session cancels its call in flight: the server is told, the row ends cancelled", async () => {
    const s = await edgeSession();
    await callTool(s.id, "mcp__fixture__counter_get", {});
    const upstream = await upstreamOf(s.id);
    const pending = callTool(s.id, "mcp__fixture__slow", { ms: 2500 });
    // wait until the server runs it
    for (let i = 0; i < 100; i++) {
      const calls = (await fixture("stats")).calls as Json[];
      if (calls.some((c) => c.session === upstream && c.tool === "slow")) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await callWith(EDGE, "DELETE", `/v1/sessions/${s.id}`)).status).toBe(204);
    const r = await pending;
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(
      /was cancelled \(cancelled: the session was deleted\); the server was sent notifications\/cancelled$/,
    );
    expect(((await fixture("stats")).cancelled as Json[]).filter((c) => c.session === upstream)).toEqual([
      { tool: "slow", session: upstream, reason: expect.any(String) },
    ]);
    await runDurableObjectAlarm(env.SESSIONS.getByName(`tenant-a/${s.id}`));
    const rows = await d1Rows("WHERE session = ? AND tool = ? AND type = ?", s.id, "mcp__fixture__slow", "call");
    expect(rows.map((r) => r.outcome)).toEqual(["cancelled"]);
  });
});

describe("no state from refused or foreign requests", () => {
  it("probing unknown and foreign ids, and a refused initialize, leave no Durable Object with storage", async () => {
    const mine = await edgeSession();
    const before = await storedObjects();
    const unknown = `ses_${"Q".repeat(32)}`;
    const probes: Array<[string, string, unknown?]> = [
      ["GET", `/v1/sessions/${unknown}`],
      ["GET", `/v1/sessions/${unknown}/audit`],
      ["GET", `/v1/sessions/${unknown}/history`],
      ["DELETE", `/v1/sessions/${unknown}`],
      ["POST", `/v1/sessions/${unknown}/tool-search`, { query: "echo" }],
      ["POST", `/v1/sessions/${unknown}/tools/mcp__everything__echo/call`, { arguments: { message: "x" } }],
    ];
    for (const [method, path, body] of probes) {
      for (const auth of [{} as Record<string, string>, { authorization: "Bearer test-key-tenant-b-000000" }]) {
        expect((await callWith(EDGE, method, path, body, auth)).status, `${method} ${path}`).toBe(404);
        const foreign = path.replace(unknown, mine.id);
        if (Object.keys(auth).length)
          expect((await callWith(EDGE, method, foreign, body, auth)).status, `B: ${method} ${foreign}`).toBe(404);
      }
    }
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const refused = [
      await callWith(EDGE, "POST", "/mcp", initialize, { accept: "application/json" }),
      await callWith(EDGE, "POST", "/mcp", JSON.stringify(initialize), {
        accept: "application/json, text/event-stream",
        "content-type": "text/plain",
      }),
    ];
    expect(refused.map((r) => [r.status, r.headers.get("mcp-session-id")])).toEqual([
      [406, null],
      [415, null],
    ]);
    expect(await storedObjects()).toBe(before);
  });

  it("an empty object left by an older version (tables, no session, an alarm) drops its storage when the alarm fires", async () => {
    const stub = env.SESSIONS.getByName(`tenant-a/ses_${"E".repeat(32)}`);
    await runInDurableObject(stub, async (_o: SessionDO, state) => {
      migrate(state.storage.sql); // what every probe used to leave
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const left = await runInDurableObject(stub, async (_o: SessionDO, state) => ({
      tables: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").one().n,
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ tables: 0, alarm: null });
  });
});
