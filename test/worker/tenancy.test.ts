// Tenants and faults: another tenant's session id is a 404 exactly like an id that does not exist,
// on every session route; a Durable Object that throws or is reset gives a clear error and keeps
// its state; deleting a session while searches run on it leaves nothing half-written.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_B, call, newSession, OPEN_RULES, search, sessionObject } from "./helpers.ts";

const chat = { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] };
const ROUTES: Array<[string, string, unknown?]> = [
  ["GET", ""],
  ["GET", "/prompt"],
  ["POST", "/tool-search", { query: "select:mcp__shop__get_order" }],
  ["DELETE", ""],
  ["POST", "chat"],
];

async function as(auth: Record<string, string>, method: string, id: string, suffix: string, body?: unknown) {
  if (suffix === "chat") return call("POST", "/v1/chat/completions", chat, { ...auth, "x-toolsearch-session": id });
  return call(method, `/v1/sessions/${id}${suffix}`, body, auth);
}

describe("tenancy", () => {
  it("another tenant's session answers 404 like a missing one, on every route, and stays untouched", async () => {
    const s = await newSession();
    await search(s.id, "select:mcp__shop__refund_order");
    const missing = `ses_${"Z".repeat(32)}`;
    for (const [method, suffix, body] of ROUTES) {
      const other = await as(AUTH_B, method, s.id, suffix, body);
      const none = await as(AUTH_B, method, missing, suffix, body);
      expect(other.status, `${method} ${suffix}`).toBe(404);
      expect(other.body).toEqual(JSON.parse(JSON.stringify(none.body).replaceAll(missing, s.id)));
    }
    const mine = await call("GET", `/v1/sessions/${s.id}`);
    expect(mine.status).toBe(200);
    expect(mine.body.activations).toEqual(["mcp__shop__refund_order"]);
  });

  it("the same id names different sessions for different tenants", async () => {
    const a = await newSession();
    const b = await call("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" }, AUTH_B);
    await search(a.id, "select:mcp__shop__refund_order");
    expect((await call("GET", `/v1/sessions/${b.body.id}`, undefined, AUTH_B)).body.activations).toEqual([]);
    expect((await call("GET", `/v1/sessions/${a.id}`)).body.activations).toEqual(["mcp__shop__refund_order"]);
  });

  it("/healthz stays open; the catalog listing needs a key", async () => {
    expect((await call("GET", "/healthz", undefined, { authorization: "" })).status).toBe(200);
    expect((await call("GET", "/v1/catalog", undefined, { authorization: "" })).status).toBe(401);
    expect((await call("GET", "/v1/catalog")).status).toBe(200);
  });
});

describe("faults", () => {
  it("a session object that throws mid-request is a 503 to retry, and what it stored stays", async () => {
    const s = await newSession();
    await search(s.id, "select:mcp__shop__refund_order");
    // break the object's storage under it: the next activation fails inside the object
    await runInDurableObject(sessionObject(s.id), (_o: SessionDO, state) =>
      state.storage.sql.exec("ALTER TABLE events RENAME TO events_gone"),
    );
    const r = await search(s.id, "select:mcp__shop__get_order");
    expect(r.status).toBe(503);
    expect(r.body.error.code).toBe("unavailable");
    expect(r.body.error.message).toMatch(/retry/);
    await runInDurableObject(sessionObject(s.id), (_o: SessionDO, state) =>
      state.storage.sql.exec("ALTER TABLE events_gone RENAME TO events"),
    );
    // the failed call wrote nothing (one transaction), and the session works again
    expect((await call("GET", `/v1/sessions/${s.id}`)).body.activations).toEqual(["mcp__shop__refund_order"]);
    expect((await search(s.id, "select:mcp__shop__get_order")).body.loaded).toEqual(["mcp__shop__get_order"]);
  });

  it("a session object reset between requests comes back with everything it stored", async () => {
    const s = await newSession();
    await search(s.id, "select:mcp__shop__refund_order");
    // abort() resets the object (and throws to its caller, this test)
    await runInDurableObject(sessionObject(s.id), (_o: SessionDO, state) => state.abort("reset for the test")).catch(() => {});
    const again = await search(s.id, "select:mcp__shop__refund_order,mcp__shop__get_order");
    expect(again.status).toBe(200);
    expect(again.body.alreadyLoaded).toEqual(["mcp__shop__refund_order"]);
    expect((await call("GET", `/v1/sessions/${s.id}`)).body.activations).toEqual(["mcp__shop__refund_order", "mcp__shop__get_order"]);
  });

  it("deleting while searches run leaves either the whole session or nothing", async () => {
    for (let round = 0; round < 5; round++) {
      const s = await newSession();
      const results = await Promise.all([
        ...["refund_order", "get_order", "cancel_order", "track_shipment"].map((t) => search(s.id, `select:mcp__shop__${t}`)),
        call("DELETE", `/v1/sessions/${s.id}`),
        search(s.id, "orders"),
      ]);
      for (const r of results) expect([200, 204, 404]).toContain(r.status);
      // the tables are gone with the session (nothing was left to deliver) or empty
      const left = await runInDurableObject(sessionObject(s.id), async (_o: SessionDO, state) => {
        const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").toArray();
        const names = new Set(tables.map((t) => t.name));
        const rows = ["session", "activations", "events", "splices"].map((t) =>
          names.has(t) ? state.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${t}`).one().n : 0,
        );
        return { rows, alarm: await state.storage.getAlarm() };
      });
      expect(left).toEqual({ rows: [0, 0, 0, 0], alarm: null });
      expect((await call("GET", `/v1/sessions/${s.id}`)).status).toBe(404);
    }
  });

  it("concurrent creation and deletion of one session object end whole or empty, never mixed", async () => {
    for (let round = 0; round < 5; round++) {
      const id = `ses_${String(round).repeat(32)}`;
      const stub = sessionObject(id);
      const init = (model: string) => ({
        id,
        catalogFile: "shop@1.0.0.json",
        catalogHash: "0".repeat(64),
        model,
        profile: "default",
        mode: "deferred" as const,
        activation: "inject" as const,
        reason: "test",
        systemSection: "",
        coreTools: [],
        ttlMs: 60_000,
      });
      const results = await Promise.all([
        stub.create(init("first")),
        stub.remove(),
        stub.create(init("second")),
        stub.activate(["mcp__shop__get_order"], "q", {}, OPEN_RULES),
      ]);
      const created = results.filter((r, i) => (i === 0 || i === 2) && r !== null);
      expect(created.length).toBeGreaterThanOrEqual(1);
      const state = await stub.get(OPEN_RULES);
      const rows = await runInDurableObject(stub, (_o: SessionDO, st) =>
        ["session", "activations", "events"].map((t) => st.storage.sql.exec(`SELECT COUNT(*) AS n FROM ${t}`).one().n),
      );
      if (state === null) expect(rows).toEqual([0, 0, 0]);
      else {
        expect(["first", "second"]).toContain(state.model);
        expect(rows[0]).toBe(1);
        expect(state.activations.length).toBe(rows[1]);
      }
      await stub.remove();
    }
  });
});
