// The session Durable Object under pressure: 50 concurrent toolSearch calls lose nothing, idle
// sessions expire through the alarm, deletion leaves nothing behind.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { call, newSession, search, sessionObject } from "./helpers.ts";

const SHOP = [
  "cancel_order",
  "refund_order",
  "track_shipment",
  "update_shipping_address",
  "get_customer",
  "send_email",
  "apply_coupon",
  "list_orders",
  "get_order",
  "create_order",
  "get_product",
  "inventory_check-stock",
].map((n) => `mcp__shop__${n}`);

describe("SessionDO", () => {
  it("50 concurrent toolSearch calls record every activation exactly once, in one order", async () => {
    const s = await newSession();
    const queries = Array.from({ length: 50 }, (_, i) => `select:${SHOP[i % SHOP.length]},${SHOP[(i * 7 + 3) % SHOP.length]}`);
    const results = await Promise.all(queries.map((q) => search(s.id, q)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const newlyLoaded = results.flatMap((r) => r.body.loaded as string[]);
    expect(newlyLoaded.sort()).toEqual([...SHOP].sort()); // each loaded by exactly one call
    const state = (await call("GET", `/v1/sessions/${s.id}`)).body;
    expect(state.activations).toHaveLength(SHOP.length);
    expect(new Set(state.activations).size).toBe(SHOP.length);
    const stub = sessionObject(s.id);
    const events = await runInDurableObject(stub, (o: SessionDO) => o.history()?.searches ?? []);
    expect(events).toHaveLength(50);
    // the event log, replayed in order, reproduces the activation order
    expect(events.flatMap((e) => e.loaded)).toEqual(state.activations);
    const prompt = (await call("GET", `/v1/sessions/${s.id}/prompt`)).body;
    expect(prompt.tools.slice(2).map((t: { function: { name: string } }) => t.function.name)).toEqual(state.activations);
  });

  it("an idle session expires through its alarm; a used one is kept", async () => {
    const idle = await newSession();
    const used = await newSession();
    await search(used.id, "select:mcp__shop__get_order");
    // the search's audit rows set the delivery alarm (about a second ahead); run it: delivered, the alarm moves to expiry
    expect(await runDurableObjectAlarm(sessionObject(used.id))).toBe(true);
    for (const s of [idle, used]) {
      const stub = sessionObject(s.id);
      const ttl = Number(env.SESSION_TTL_SECONDS) * 1000;
      await runInDurableObject(stub, (_o: SessionDO, state) => {
        const alarm = state.storage.getAlarm();
        return alarm;
      }).then((alarm) => expect(alarm).toBeGreaterThan(Date.now() + ttl - 60_000));
      // the idle one was last used 8 days ago, the used one just now
      if (s === idle)
        await runInDurableObject(
          stub,
          (_o: SessionDO, state) => void state.storage.sql.exec("UPDATE session SET last_used_at = ?", Date.now() - ttl - 86_400_000),
        );
      expect(await runDurableObjectAlarm(stub)).toBe(true);
    }
    expect((await call("GET", `/v1/sessions/${idle.id}`)).status).toBe(404);
    const kept = await call("GET", `/v1/sessions/${used.id}`);
    expect(kept.status).toBe(200);
    expect(kept.body.activations).toEqual(["mcp__shop__get_order"]);
    const next = await runInDurableObject(sessionObject(used.id), (_o: SessionDO, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThan(Date.now());
  });

  it("deleting a session removes every row and the alarm", async () => {
    const s = await newSession();
    await search(s.id, "refund");
    expect((await call("DELETE", `/v1/sessions/${s.id}`)).status).toBe(204);
    const stub = sessionObject(s.id);
    // nothing left to deliver: the object dropped its storage, tables and all
    const tables = await runInDurableObject(
      stub,
      (_o: SessionDO, state) => state.storage.sql.exec("SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table'").one().n,
    );
    expect(tables).toBe(0);
    expect(await runInDurableObject(stub, (_o: SessionDO, state) => state.storage.getAlarm())).toBeNull();
  });
});
