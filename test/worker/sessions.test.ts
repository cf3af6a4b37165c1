// Sessions end to end inside workerd: create, prompt invariants (frozen system, tools only grow
// at the end, identical bytes across sessions, prefixHash), toolSearch activation and its
// persistence in the Durable Object, deletion, and the x-catalog header.
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { call, newSession, promptOf, search } from "./helpers.ts";

const SHOP_LABEL = /^shop@1\.0\.0#[0-9a-f]{12}$/;

describe("POST /v1/sessions", () => {
  it("creates a deferred session with the deferred names in the system prompt", async () => {
    const r = await call("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" });
    expect(r.status).toBe(201);
    expect(r.headers.get("x-catalog")).toMatch(SHOP_LABEL);
    expect(r.body.id).toMatch(/^ses_[A-Za-z0-9_-]{32}$/);
    expect(r.body).toMatchObject({
      mode: "deferred",
      reason: expect.stringMatching(/^deferral is on for this session; listing "names": \d+ tokens fit/),
      catalog: { name: "shop", version: "1.0.0" },
    });
    const { system, tools } = r.body.prompt;
    for (const name of ["mcp__shop__get_order", "mcp__shop__refund_order", "mcp__shop__inventory_check-stock"])
      expect(system).toContain(`\n${name}\n`);
    expect(system).not.toContain("mcp__shop__search_products"); // alwaysLoad: a core tool, never deferred
    expect(tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["mcp__shop__search_products", "toolSearch"]);
  });

  it("gives session ids with at least 128 random bits (no repeats, all characters used)", async () => {
    // 64 ids: a fixed bit shows in all 64 by chance with p = 2^-63, a missing base64url character with p < 1e-7
    const ids: string[] = (await Promise.all(Array.from({ length: 64 }, () => newSession()))).map((s) => s.id);
    expect(new Set(ids).size).toBe(64);
    const bodies = ids.map((id) => Uint8Array.from(atob(id.slice(4).replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)));
    // ses_ + 16 random bytes + an 8-byte tag (worker/session/ids.ts): each of the 128 bits of the random part takes both values
    expect(bodies.map((b) => b.length)).toEqual(ids.map(() => 24));
    const fixed = Array.from({ length: 128 }, (_, bit) => bit).filter((bit) => {
      const values = new Set(bodies.map((b) => (b[bit >> 3]! >> (bit & 7)) & 1));
      return values.size < 2;
    });
    expect(fixed).toEqual([]);
    expect(new Set(bodies.map((b) => b.subarray(0, 16).join())).size).toBe(64);
    expect(new Set(ids.flatMap((id) => [...id.slice(4)])).size).toBe(64);
  });
});

describe("prompt invariants", () => {
  it("system never changes; tools grow only at the end; prefixHash changes exactly with the bytes", async () => {
    const s = await newSession();
    const turns = [await promptOf(s.id)];
    for (const q of [
      "select:mcp__shop__refund_order",
      "track parcel shipment",
      "select:mcp__shop__refund_order",
      "select:mcp__shop__send_email,mcp__shop__get_customer",
    ]) {
      expect((await search(s.id, q)).status).toBe(200);
      turns.push(await promptOf(s.id));
    }
    for (let i = 1; i < turns.length; i++) {
      const [prev, next] = [turns[i - 1], turns[i]];
      expect(next.system).toBe(prev.system);
      const prevBytes = canonicalJson(prev.tools);
      const nextBytes = canonicalJson(next.tools);
      expect(nextBytes.slice(0, prevBytes.length - 1)).toBe(prevBytes.slice(0, -1)); // same array, more elements
      expect(next.prefixHash === prev.prefixHash).toBe(nextBytes === prevBytes);
      expect(next.promptCacheKey).toBe(prev.promptCacheKey);
    }
    const names = turns.at(-1).tools.map((t: { function: { name: string } }) => t.function.name);
    expect(names.slice(0, 3)).toEqual(["mcp__shop__search_products", "toolSearch", "mcp__shop__refund_order"]);
    expect(names).toContain("mcp__shop__track_shipment");
    expect(names.slice(-2)).toEqual(["mcp__shop__send_email", "mcp__shop__get_customer"]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("two sessions with the same catalog, model and profile get byte-identical prompts", async () => {
    const [a, b] = [await newSession(), await newSession()];
    for (const s of [a, b]) await search(s.id, "select:mcp__shop__get_order");
    const [pa, pb] = [await promptOf(a.id), await promptOf(b.id)];
    expect(JSON.stringify(pb)).toBe(JSON.stringify(pa));
    const [aa, ab] = [await promptOf(a.id, "anthropic"), await promptOf(b.id, "anthropic")];
    expect(JSON.stringify(ab)).toBe(JSON.stringify(aa));
    expect(aa.tools[0]).toEqual({
      name: "mcp__shop__search_products",
      description: expect.any(String),
      input_schema: expect.objectContaining({ type: "object" }),
    });
    expect(aa.prefixHash).not.toBe(pa.prefixHash);
  });
});

describe("toolSearch", () => {
  it("select: loads exact names, then answers Already loaded", async () => {
    const s = await newSession();
    const first = await search(s.id, "select:mcp__shop__refund_order");
    expect(first.body).toMatchObject({ loaded: ["mcp__shop__refund_order"], alreadyLoaded: [] });
    expect(first.body.result).toContain("Loaded 1 tool");
    const again = await search(s.id, "select:mcp__shop__refund_order");
    expect(again.body).toMatchObject({ loaded: [], alreadyLoaded: ["mcp__shop__refund_order"] });
    expect(again.body.result).toBe("Already loaded — call mcp__shop__refund_order directly now.");
    const core = await search(s.id, "select:mcp__shop__search_products");
    expect(core.body.result).toBe("Already loaded — call mcp__shop__search_products directly now.");
  });

  it("unknown names get the closest existing names", async () => {
    const s = await newSession();
    const r = await search(s.id, "select:mcp__shop__refund,mcp__shop__get_order");
    expect(r.body.loaded).toEqual(["mcp__shop__get_order"]);
    expect(r.body.result).toMatch(/Unknown tool "mcp__shop__refund"\. Closest names: mcp__shop__refund_order, /);
  });

  it("keywords rank whole words and load the best `limit` results", async () => {
    const s = await newSession();
    const r = await search(s.id, "refund order payment", 2);
    expect(r.body.matches).toHaveLength(2);
    expect(r.body.matches[0]).toMatchObject({ name: "mcp__shop__refund_order" });
    expect(r.body.loaded).toEqual(r.body.matches.map((m: { name: string }) => m.name));
    const session = await call("GET", `/v1/sessions/${s.id}`);
    expect(session.body.activations).toEqual(r.body.loaded);
  });

  it("+word requires a word; mcp__<server> restricts to a server, and alone browses it", async () => {
    const s = await newSession();
    const r = await search(s.id, "discount order +coupon");
    expect(r.body.matches.map((m: { name: string }) => m.name)).toEqual(["mcp__shop__apply_coupon"]);
    const scoped = await search(s.id, "mcp__shop order", 3);
    expect(scoped.body.loaded).toHaveLength(3);
    expect(scoped.body.loaded.every((n: string) => n.startsWith("mcp__shop__"))).toBe(true);
    expect(scoped.body.result).toContain("Server shop has 13 tools: browse them with mcp__shop");
    const browsed = await search(s.id, "mcp__shop", 3);
    expect(browsed.body).toMatchObject({ loaded: [], alreadyLoaded: [] });
    expect(browsed.body.matches).toHaveLength(3);
    expect(browsed.body.result).toMatch(/^Server shop: 13 tools, 1-3 shown \(page 1 of 5\)/);
  });

  it("words that name Object.prototype members are ordinary words", async () => {
    const s = await newSession();
    for (const q of ["constructor", "__proto__ toString", "hasOwnProperty valueOf order"]) {
      const r = await search(s.id, q);
      expect(r.status, q).toBe(200);
      expect(Array.isArray(r.body.matches)).toBe(true);
    }
  });

  it("bad queries are 400s naming the field and the rule, and record nothing", async () => {
    const s = await newSession();
    for (const [query, limit, text] of [
      ["", undefined, "query: must not be empty: `select:<name>` or keywords"],
      ["x".repeat(1001), undefined, "query: at most 1000 characters"],
      ["orders", 0, "limit: must be an integer from 1 to 20"],
      ["orders", 21, "limit: must be an integer from 1 to 20"],
      [`select:${Array.from({ length: 21 }, (_, i) => `t${i}`).join(",")}`, undefined, "query: select: takes at most 20 names, got 21"],
    ] as const) {
      const r = await search(s.id, query, limit);
      expect(r.status).toBe(400);
      expect(r.body.error).toEqual({ code: "bad_request", message: text });
    }
    expect((await call("GET", `/v1/sessions/${s.id}`)).body.activations).toEqual([]);
  });
});

describe("GET / DELETE", () => {
  it("reads the session and deletes everything", async () => {
    const s = await newSession({ model: "claude-sonnet-4-5", deferral: "on", profile: "support" });
    await search(s.id, "select:mcp__shop__cancel_order");
    const r = await call("GET", `/v1/sessions/${s.id}`);
    expect(r.body).toMatchObject({
      id: s.id,
      mode: "deferred",
      model: "claude-sonnet-4-5",
      profile: "support",
      activations: ["mcp__shop__cancel_order"],
    });
    expect(new Date(r.body.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect((await call("DELETE", `/v1/sessions/${s.id}`)).status).toBe(204);
    for (const [m, p] of [
      ["GET", ""],
      ["GET", "/prompt"],
      ["DELETE", ""],
    ] as const) {
      const gone = await call(m, `/v1/sessions/${s.id}${p}`);
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe("not_found");
    }
    expect((await search(s.id, "select:mcp__shop__get_order")).status).toBe(404);
  });

  it("GET /v1/catalog and /healthz describe the pinned catalog", async () => {
    const c = await call("GET", "/v1/catalog");
    expect(c.status).toBe(200);
    expect(c.headers.get("x-catalog")).toMatch(SHOP_LABEL);
    expect(c.body).toMatchObject({
      name: "shop",
      version: "1.0.0",
      tools: 13,
      servers: [{ name: "shop", transport: "recorded", tools: 13 }],
    });
    expect(c.body.tokens.fullInjection).toBeGreaterThan(c.body.tokens.deferredNames);
    const h = await call("GET", "/healthz");
    expect(h.body).toMatchObject({ ok: true, tools: 13 });
  });
});
