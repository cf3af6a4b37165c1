// The audit trail inside workerd: every search, activation, call and denial is a row in the
// session's SQLite and, delivered by its outbox, in D1; GET /v1/audit (D1, per tenant) and
// GET /v1/sessions/:id/audit (the session) list them newest first with filters and a cursor.
// While D1 fails nothing is lost: the rows wait in the outbox and the alarm delivers them once.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_B, callTool, callWith, d1Rows, EDGE, edgeSession, sessionObject, type Json } from "./helpers.ts";

const search = (id: string, query: string) => callWith(EDGE, "POST", `/v1/sessions/${id}/tool-search`, { query });
const sessionIds = async (id: string) =>
  (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=500`)).body.events.map((e: Json) => e.id).sort();

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Some of every kind of event in a session: search, activations, calls (ok, tool error), denial. */
async function busySession(access?: Record<string, unknown>) {
  const s = await edgeSession(access ?? { default: { deny: ["mcp__fixture__wipe_all"] } });
  await search(s.id, "counter");
  await callTool(s.id, "mcp__fixture__counter_add", { n: 2 });
  await callTool(s.id, "mcp__fixture__fail", {});
  await callTool(s.id, "mcp__fixture__wipe_all", { confirm: true });
  await callTool(s.id, "mcp__fixture__counter_add", { n: "bad" });
  return s;
}

describe("audit rows", () => {
  it("records every kind of event in the session and delivers the same rows to D1", async () => {
    const s = await busySession();
    const events = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit`)).body.events as Json[];
    const kinds = events.map((e) => `${e.type}:${e.tool ?? "-"}:${e.outcome}`);
    expect(kinds).toEqual([
      "call:mcp__fixture__counter_add:invalid_arguments",
      "denial:mcp__fixture__wipe_all:denied",
      "call:mcp__fixture__fail:tool_error",
      "activation:mcp__fixture__fail:ok",
      "call:mcp__fixture__counter_add:ok",
      ...events
        .slice(5)
        .map((e) => `${e.type}:${e.tool ?? "-"}:${e.outcome}`)
        .filter((k) => k.startsWith("activation:")),
      "search:-:ok",
    ]);
    for (const e of events) {
      expect(e).toMatchObject({
        session: s.id,
        id: expect.stringMatching(/^ev_[0-9a-f]{30}$/),
        at: expect.any(String),
        durationMs: expect.any(Number),
        argsBytes: expect.any(Number),
      });
      expect(Date.parse(e.at)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(events.find((e) => e.type === "search").detail).toMatch(/^\d+ matched; loaded \d+, already loaded 0$/);
    await until(async () => (await d1Rows("WHERE session = ?", s.id)).length === events.length, "delivery to D1");
    const rows = await d1Rows("WHERE session = ?", s.id);
    expect(rows.map((r) => r.id).sort()).toEqual(events.map((e) => e.id).sort());
    expect(new Set(rows.map((r) => r.tenant))).toEqual(new Set(["tenant-a"]));
  });

  it("a search is audited as a search whatever its words; a call's own load is an activation only", async () => {
    const s = await edgeSession();
    await search(s.id, "call:counter");
    await callTool(s.id, "mcp__everything__echo", { message: "x" });
    const events = ((await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit`)).body.events as Json[]).reverse();
    expect(events.map((e) => `${e.type}:${e.tool ?? "-"}`)).toEqual([
      "search:-",
      ...events.slice(1, -2).map((e) => `activation:${e.tool}`), // what the search loaded
      "activation:mcp__everything__echo",
      "call:mcp__everything__echo",
    ]);
    expect(events.slice(1, -2).length).toBeGreaterThan(0);
  });

  it("GET /v1/audit: the tenant's events across sessions, filtered, newest first, paged by cursor", async () => {
    const [a, b] = [await busySession(), await busySession()];
    await until(async () => (await d1Rows("WHERE session IN (?, ?)", a.id, b.id)).length >= 16, "delivery to D1");
    const calls = (await callWith(EDGE, "GET", `/v1/audit?tool=mcp__fixture__counter_add&outcome=ok&type=call`)).body.events as Json[];
    expect(calls.filter((e) => [a.id, b.id].includes(e.session))).toHaveLength(2);
    for (const e of calls) expect(e).toMatchObject({ tool: "mcp__fixture__counter_add", outcome: "ok", type: "call" });
    const one = (await callWith(EDGE, "GET", `/v1/audit?session=${a.id}&limit=500`)).body.events as Json[];
    expect(one.map((e) => e.id)).toEqual(await sessionIds(a.id).then((ids: string[]) => ids.reverse()));
    // pages of 3, newest first, cover exactly the session's events
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = (await callWith(EDGE, "GET", `/v1/audit?session=${b.id}&limit=3${cursor ? `&cursor=${cursor}` : ""}`)).body;
      seen.push(...page.events.map((e: Json) => e.id));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(seen.sort()).toEqual(await sessionIds(b.id));
    const since = (await callWith(EDGE, "GET", `/v1/audit?since=${new Date(Date.now() + 60_000).toISOString()}`)).body;
    expect(since).toEqual({ events: [], cursor: null });
    // tenant B sees none of tenant A's events, and not A's session either
    const other = (await callWith(EDGE, "GET", `/v1/audit?session=${a.id}`, undefined, AUTH_B)).body;
    expect(other.events).toEqual([]);
    expect((await callWith(EDGE, "GET", `/v1/sessions/${a.id}/audit`, undefined, AUTH_B)).status).toBe(404);
  });

  it("rejects bad filters with a 400 naming the parameter", async () => {
    for (const [q, message] of [
      ["outcome=maybe", /^outcome: must be one of ok, tool_error/],
      ["limit=0", /^limit: must be an integer from 1 to 500/],
      ["since=yesterday", /^since: must be an ISO 8601 time/],
      ["cursor=abc", /^cursor: must be a cursor/],
      ["colour=red", /^unknown query parameter "colour"/],
    ] as const) {
      const r = await callWith(EDGE, "GET", `/v1/audit?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message).toMatch(message);
    }
  });

  it("keeps argument values only with AUDIT_ARGUMENTS=store", async () => {
    const plain = await edgeSession();
    await callTool(plain.id, "mcp__fixture__counter_add", { n: 3 });
    expect((await callWith(EDGE, "GET", `/v1/sessions/${plain.id}/audit?type=call`)).body.events[0]).not.toHaveProperty("arguments");
    const r = await callWith({ ...EDGE, AUDIT_ARGUMENTS: "store" }, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" });
    await callTool(r.body.id, "mcp__fixture__counter_add", { n: 3 });
    expect((await callWith(EDGE, "GET", `/v1/sessions/${r.body.id}/audit?type=call`)).body.events[0].arguments).toEqual({ n: 3 });
  });
});

describe("delivery while D1 fails", () => {
  it("loses nothing: rows wait in the outbox, the alarm retries, and D1 ends with each row once", async () => {
    await env.AUDIT.exec("ALTER TABLE audit_events RENAME TO audit_events_down");
    let s: Json;
    try {
      s = await busySession();
      const stub = sessionObject(s.id);
      const waiting = await runInDurableObject(stub, async (_o: SessionDO, state) => ({
        outbox: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM audit WHERE delivered = 0").one().n,
        alarm: await state.storage.getAlarm(),
      }));
      expect(waiting.outbox).toBe((await sessionIds(s.id)).length);
      // the retry, not the 7-day expiry, is the next alarm
      expect(waiting.alarm).toBeLessThan(Date.now() + 120_000);
      expect(await runDurableObjectAlarm(stub)).toBe(true); // D1 still down: the alarm fails, schedules again
      expect(await runInDurableObject(stub, (_o: SessionDO, state) => state.storage.getAlarm())).toBeLessThan(Date.now() + 120_000);
    } finally {
      await env.AUDIT.exec("ALTER TABLE audit_events_down RENAME TO audit_events");
    }
    const stub = sessionObject(s.id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const ids = await sessionIds(s.id);
    expect((await d1Rows("WHERE session = ?", s.id)).map((r) => r.id).sort()).toEqual(ids);
    // an alarm that fires again delivers nothing twice
    await runInDurableObject(stub, (_o: SessionDO, state) => void state.storage.sql.exec("UPDATE audit SET delivered = 0"));
    await runInDurableObject(stub, (o: SessionDO) => o.kickDelivery());
    expect((await d1Rows("WHERE session = ?", s.id)).length).toBe(ids.length);
    // the retry alarm is replaced by the session's expiry once the outbox is empty
    expect(await runInDurableObject(stub, (_o: SessionDO, state) => state.storage.getAlarm())).toBeGreaterThan(Date.now() + 86_400_000);
  });

  it("a session deleted while D1 is down keeps its undelivered rows until they are delivered", async () => {
    await env.AUDIT.exec("ALTER TABLE audit_events RENAME TO audit_events_down");
    let id = "";
    try {
      id = (await busySession()).id;
      expect((await callWith(EDGE, "DELETE", `/v1/sessions/${id}`)).status).toBe(204);
      expect((await callWith(EDGE, "GET", `/v1/sessions/${id}`)).status).toBe(404);
    } finally {
      await env.AUDIT.exec("ALTER TABLE audit_events_down RENAME TO audit_events");
    }
    const stub = sessionObject(id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await d1Rows("WHERE session = ?", id)).length).toBeGreaterThanOrEqual(6);
    // everything delivered: the object drops its storage (no tables, no alarm)
    const left = await runInDurableObject(stub, async (_o: SessionDO, state) => ({
      tables: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").one().n,
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ tables: 0, alarm: null });
  });
});
