// Quotas (issue 30 M10; worker/quotas.ts). tenant-q may make 8 requests a minute per key; tenant-s
// may open 3 sessions an hour per key, keeps 2 stored responses per session and 1 day of audit
// (wrangler.toml [env.test.vars.QUOTAS]). Each limit is reached as a client would reach it, and
// the refusal is checked in the shape of the surface that gave it: 429, retry-after, and the error
// body REST, the Messages API and the MCP gateway each speak. Retention is checked on rows made old.
import { createScheduledController, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { eventId } from "../../worker/core/audit.ts";
import worker from "./main.ts";
import { parseQuotas } from "../../worker/quotas.ts";
import type { ResponseObject } from "../../worker/responses/shapes.ts";
import { newResponseId } from "../../worker/responses/shapes.ts";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { leaseSize } from "../../worker/session/quota-client.ts";
import { AUTH_A, AUTH_B, call, callWith, clearOfBoundary, EDGE, KEY_B, KEY_Q, KEY_S } from "./helpers.ts";

const AUTH_Q = { authorization: `Bearer ${KEY_Q}` };
const AUTH_S = { authorization: `Bearer ${KEY_S}` };
const DAY = 86_400_000;

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "quota-test", version: "1.0.0" } },
};
const MCP_HEADERS = { accept: "application/json, text/event-stream" };

describe("requests per key per minute", () => {
  it("the key's 9th request in a minute is a 429 with retry-after, on every surface in its own shape; other keys go on", async () => {
    await clearOfBoundary(60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await call("GET", "/v1/catalog", undefined, AUTH_Q)).status);
    expect(statuses).toEqual(Array(8).fill(200));

    const rest = await call("GET", "/v1/catalog", undefined, AUTH_Q);
    expect(rest.status).toBe(429);
    expect(rest.body.error.code).toBe("rate_limited");
    expect(rest.body.error.message).toMatch(/quota of 8 requests a minute/);
    const after = Number(rest.headers.get("retry-after"));
    expect(after).toBeGreaterThanOrEqual(1);
    expect(after).toBeLessThanOrEqual(60);

    const messages = await call("POST", "/v1/messages", { model: "m", max_tokens: 10, messages: [] }, { ...AUTH_Q, "x-api-key": KEY_Q });
    expect(messages.status).toBe(429);
    expect(messages.body).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(messages.headers.get("retry-after")).toBeTruthy();

    const mcp = await call("POST", "/mcp", initialize, { ...AUTH_Q, ...MCP_HEADERS });
    expect(mcp.status).toBe(429);
    expect(mcp.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
    expect(mcp.headers.get("retry-after")).toBeTruthy();

    const chat = await call("POST", "/v1/chat/completions", { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }, AUTH_Q);
    expect(chat.status).toBe(429);
    expect(chat.body.error).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/quota of 8 requests a minute/) });
    expect(chat.headers.get("retry-after")).toBeTruthy();

    // the Responses API answers in OpenAI's error shape
    const responses = await call("POST", "/v1/responses", { model: "gpt-4o", input: "hi" }, AUTH_Q);
    expect(responses.status).toBe(429);
    expect(responses.body.error).toMatchObject({ type: "invalid_request_error", code: "rate_limited" });
    expect(responses.headers.get("retry-after")).toBeTruthy();

    // another tenant's key is counted apart
    expect((await call("GET", "/v1/catalog", undefined, AUTH_A)).status).toBe(200);
  });

  it("counts in fixed windows: blocks up to the limit, a refusal that takes nothing, and the next window open again", async () => {
    const quota = env.SESSIONS.getByName(`quota:tenant-x/${crypto.randomUUID()}`).quota();
    const t0 = 1_800_000_000_000; // a minute's start
    const ends = t0 + 60_000;
    expect(await quota.take("requests", 5, 60_000, 2, t0 + 10_000)).toEqual({ granted: 2, used: 0, ends });
    expect(await quota.take("requests", 5, 60_000, 2, t0 + 10_001)).toEqual({ granted: 2, used: 2, ends });
    // the last unit: a block is cut to what is left
    expect(await quota.take("requests", 5, 60_000, 2, t0 + 10_002)).toEqual({ granted: 1, used: 4, ends });
    expect(await quota.take("requests", 5, 60_000, 1, t0 + 59_999)).toEqual({ granted: 0, used: 5, ends });
    expect(await quota.take("requests", 5, 60_000, 1, t0 + 59_999)).toEqual({ granted: 0, used: 5, ends });
    expect(await quota.take("requests", 5, 60_000, 1, t0 + 60_000)).toEqual({ granted: 1, used: 0, ends: ends + 60_000 });
    // another kind has its own window
    expect(await quota.take("sessions", 1, 3_600_000, 1, t0 + 60_001)).toMatchObject({ granted: 1, used: 0 });
  });

  it("a large limit is leased in blocks: 50 requests cost the key's counter one call, and the window's count never passes the limit", async () => {
    // tenant-a has the defaults: 60,000 a minute, leased 100 at a time (1%)
    await clearOfBoundary(60_000);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(KEY_B)));
    const keyId = [...digest.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const counter = env.SESSIONS.getByName(`quota:tenant-b/${keyId}`);
    const used = () =>
      runInDurableObject(
        counter,
        (_o: SessionDO, state) =>
          state.storage.sql.exec<{ used: number }>("SELECT used FROM quota_windows WHERE kind = 'requests'").toArray()[0]?.used ?? 0,
      );
    const statuses = new Set<number>();
    for (let i = 0; i < 50; i++) statuses.add((await call("GET", "/v1/catalog", undefined, AUTH_B)).status);
    expect([...statuses]).toEqual([200]);
    expect(await used()).toBe(leaseSize(60_000));
    expect(leaseSize(60_000)).toBe(100);
    expect(leaseSize(8)).toBe(1);
    // blocks of 100 against a limit of 250 (a counter of its own): the last block is cut, none passes the limit
    const quota = env.SESSIONS.getByName(`quota:tenant-x/${crypto.randomUUID()}`).quota();
    const granted: number[] = [];
    for (let i = 0; i < 4; i++) granted.push((await quota.take("requests", 250, 60_000, 100)).granted);
    expect(granted).toEqual([100, 100, 50, 0]);
    expect(await quota.take("requests", 250, 60_000, 100)).toMatchObject({ granted: 0, used: 250 });
  });

  it("the quota object keeps nothing once its windows have ended", async () => {
    const stub = env.SESSIONS.getByName(`quota:tenant-x/${crypto.randomUUID()}`);
    expect(await stub.quota().take("requests", 5, 60_000)).toMatchObject({ granted: 1 });
    const alarm = await runInDurableObject(stub, (_o: SessionDO, state) => state.storage.getAlarm());
    expect(alarm).toBeGreaterThan(Date.now());
    expect(alarm).toBeLessThanOrEqual(Date.now() + 60_000);
    // the alarm, run now, finds the window still open and keeps the count
    await runDurableObjectAlarm(stub);
    expect(await stub.quota().take("requests", 1, 60_000)).toMatchObject({ granted: 0, used: 1 });
    // once the window ended (its end moved into the past), the alarm drops the storage
    await runInDurableObject(stub, (_o: SessionDO, state) => state.storage.sql.exec("UPDATE quota_windows SET ends = 1"));
    await runDurableObjectAlarm(stub);
    const tables = await runInDurableObject(stub, (_o: SessionDO, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'quota_windows'").toArray(),
    );
    expect(tables).toEqual([]);
  });
});

// tenant-s may open 3 sessions an hour: the tests below count what they open (`opened`)
let opened = 0;
async function openSession(): Promise<string> {
  const r = await call("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" }, AUTH_S);
  expect(r.status).toBe(201);
  opened++;
  return r.body.id as string;
}

describe("stored responses per session", () => {
  it("a session keeps the newest 2; the oldest is gone", async () => {
    await clearOfBoundary(3_600_000, 30_000); // this file's sessions of tenant-s all fall in one hour
    const id = await openSession();
    const stub = env.SESSIONS.getByName(`tenant-s/${id}`);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const rid = newResponseId(id);
      const response = { id: rid, previous_response_id: ids.at(-1) ?? null } as unknown as ResponseObject;
      expect(await stub.putResponse({ response, messages: [{ role: "user", content: `turn ${i}` }] })).toBe(true);
      ids.push(rid);
    }
    expect(await stub.response(ids[0]!)).toBeNull();
    expect((await stub.response(ids[1]!))?.id).toBe(ids[1]);
    expect((await stub.response(ids[2]!))?.id).toBe(ids[2]);
  });
});

describe("audit retention", () => {
  it("a session's alarm drops its delivered audit rows and search events older than the tenant's 1 day, and keeps newer ones", async () => {
    const id = await openSession();
    const stub = env.SESSIONS.getByName(`tenant-s/${id}`);
    const search = (query: string) => call("POST", `/v1/sessions/${id}/tool-search`, { query }, AUTH_S);
    expect((await search("get order")).status).toBe(200);
    await runDurableObjectAlarm(stub); // delivers the rows to D1 (and prunes nothing: they are new)
    const rows = () =>
      runInDurableObject(stub, (_o: SessionDO, state) => ({
        audit: state.storage.sql.exec<{ id: string; delivered: number }>("SELECT id, delivered FROM audit ORDER BY id").toArray(),
        events: state.storage.sql.exec<{ query: string }>("SELECT query FROM events ORDER BY seq").toArray(),
      }));
    const first = await rows();
    expect(first.audit.length).toBeGreaterThan(0);
    expect(first.audit.every((r) => r.delivered === 1)).toBe(true);
    // two days pass for those rows
    await runInDurableObject(stub, (_o: SessionDO, state) => {
      state.storage.sql.exec("UPDATE audit SET at = at - ?", 2 * DAY);
      state.storage.sql.exec("UPDATE events SET at = at - ?", 2 * DAY);
    });
    expect((await search("refund order")).status).toBe(200);
    await runDurableObjectAlarm(stub);
    const second = await rows();
    expect(second.events.map((e) => e.query)).toEqual(["refund order"]);
    expect(second.audit.length).toBeGreaterThan(0);
    expect(second.audit.some((r) => first.audit.some((f) => f.id === r.id))).toBe(false);
    // the session itself is untouched
    expect((await call("GET", `/v1/sessions/${id}`, undefined, AUTH_S)).status).toBe(200);
  });

  it("the daily cron deletes D1 rows past each tenant's retention: tenant-s's 1 day, everyone else's 90", async () => {
    const now = Date.now();
    const session = `ses_${"c".repeat(32)}`;
    const row = async (tenant: string, ageDays: number) => {
      const at = now - ageDays * DAY;
      const id = eventId(at, Math.floor(Math.random() * 1e6), crypto.getRandomValues(new Uint8Array(6)));
      await env.AUDIT.prepare(
        "INSERT INTO audit_events (id, at, tenant, session, type, decision, outcome, duration_ms, args_bytes, result_bytes, via) VALUES (?, ?, ?, ?, 'search', 'allow', 'ok', 0, 0, 0, 'rest')",
      )
        .bind(id, at, tenant, session)
        .run();
      return id;
    };
    const ids = {
      sOld: await row("tenant-s", 2),
      sNew: await row("tenant-s", 0.5),
      aTwoDays: await row("tenant-a", 2),
      aOld: await row("tenant-a", 91),
    };
    await worker.scheduled(createScheduledController({ cron: "17 3 * * *", scheduledTime: now }), env);
    const left = new Set(
      (await env.AUDIT.prepare("SELECT id FROM audit_events WHERE session = ?").bind(session).all<{ id: string }>()).results.map(
        (r) => r.id,
      ),
    );
    expect([...left].sort()).toEqual([ids.sNew, ids.aTwoDays].sort());
  });
});

describe("sessions per key per hour", () => {
  it("the 4th new session in an hour is refused, whichever surface opens it; the existing ones go on", async () => {
    await clearOfBoundary(3_600_000, 20_000);
    const ids: string[] = [];
    while (opened < 3) ids.push(await openSession());
    const fourth = await call("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" }, AUTH_S);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe("rate_limited");
    expect(fourth.body.error.message).toMatch(/quota of 3 sessions an hour/);
    expect(Number(fourth.headers.get("retry-after"))).toBeGreaterThan(0);

    // the MCP gateway's initialize opens a session too
    const mcp = await callWith(EDGE, "POST", "/mcp", initialize, { ...AUTH_S, ...MCP_HEADERS });
    expect(mcp.status).toBe(429);
    expect(mcp.body.error.code).toBe(-32000);

    // the sessions it has still work
    expect((await call("POST", `/v1/sessions/${ids[0]}/tool-search`, { query: "order" }, AUTH_S)).status).toBe(200);
  });
});

describe("QUOTAS settings", () => {
  it("a bad value is a config error naming the field; overrides apply to their tenant only", () => {
    expect(() => parseQuotas({ requestsPerKeyPerMinute: -1 })).toThrow(/QUOTAS\.requestsPerKeyPerMinute/);
    expect(() => parseQuotas({ tenants: { t: { sessionsPerHour: 3 } } })).toThrow(/QUOTAS\.tenants\.t/);
    const q = parseQuotas({ auditRetentionDays: 30, tenants: { t: { auditRetentionDays: 0 } } });
    expect(q.forTenant("t").auditRetentionDays).toBe(0);
    expect(q.forTenant("u").auditRetentionDays).toBe(30);
    expect(q.forTenant("u").requestsPerKeyPerMinute).toBe(60_000);
  });
});
