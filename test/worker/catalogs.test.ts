// Catalog pinning and catalog faults: a session keeps the catalog it started with across a deploy
// that pins a newer one; a catalog file that is gone answers 409 for its sessions; a missing or
// tampered pinned catalog (or one in the old format) makes every route 503 with a JSON error
// naming the file and the reason.
import { sessionIdOf } from "../../worker/session/ids.ts";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { callWith, sessionObject } from "./helpers.ts";

const V1 = { CATALOG: "shop@1.0.0.json" };
const V2 = { CATALOG: "shop@2.0.0.json" };

describe("pinning", () => {
  it("a session keeps its catalog when a newer one is pinned; new sessions get the new one", async () => {
    const old = (await callWith(V1, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body;
    await callWith(V1, "POST", `/v1/sessions/${old.id}/tool-search`, { query: "select:mcp__shop__cancel_order" });
    const before = (await callWith(V1, "GET", `/v1/sessions/${old.id}/prompt`)).body;

    // the deploy: v2 pinned, v1 still deployed. cancel_order is gone from v2, gift_wrap_order is new
    const after = await callWith(V2, "GET", `/v1/sessions/${old.id}/prompt`);
    expect(after.status).toBe(200);
    expect(after.headers.get("x-catalog")).toMatch(/^shop@1\.0\.0#/);
    expect(JSON.stringify(after.body)).toBe(JSON.stringify(before));
    const searched = await callWith(V2, "POST", `/v1/sessions/${old.id}/tool-search`, { query: "select:mcp__shop__gift_wrap_order" });
    expect(searched.body.result).toMatch(/^Unknown tool "mcp__shop__gift_wrap_order"/);

    const fresh = await callWith(V2, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" });
    expect(fresh.headers.get("x-catalog")).toMatch(/^shop@2\.0\.0#/);
    expect(fresh.body.catalog.version).toBe("2.0.0");
    expect(fresh.body.prompt.system).toContain("mcp__shop__gift_wrap_order");
    expect(fresh.body.prompt.system).not.toContain("mcp__shop__cancel_order");
    const info = await callWith(V2, "GET", `/v1/sessions/${old.id}`);
    expect(info.body.catalog.version).toBe("1.0.0");
  });

  it("a session whose catalog file is no longer deployed answers 409", async () => {
    // an id issued for tenant A (ids.ts), for a session stored directly in its object
    const id = await sessionIdOf(undefined, "tenant-a", new Uint8Array(16));
    const stub = sessionObject(id);
    await runInDurableObject(stub, (o: SessionDO) =>
      o.create({
        id,
        catalogFile: "shop@0.9.0.json",
        catalogHash: "0".repeat(64),
        model: "gpt-4o",
        profile: "default",
        mode: "deferred",
        activation: "inject",
        reason: "test",
        systemSection: "",
        coreTools: [],
        ttlMs: 60_000,
      }),
    );
    for (const [m, p, body] of [
      ["GET", "", undefined],
      ["GET", "/prompt", undefined],
      ["POST", "/tool-search", { query: "orders" }],
    ] as const) {
      const r = await callWith(V1, m, `/v1/sessions/${id}${p}`, body);
      expect(r.status).toBe(409);
      expect(r.body.error.code).toBe("catalog_mismatch");
      expect(r.body.error.message).toContain("was created on catalog shop@0.9.0.json, which is no longer deployed");
    }
  });
});

describe("catalog faults: every route answers 503 naming the file and the reason", () => {
  it.each([
    [
      "missing",
      "shop@9.9.9.json",
      "catalog_missing",
      "catalog shop@9.9.9.json is not deployed (no such file in catalogs/ when the Worker was built)",
    ],
    ["tampered", "tampered@1.0.0.json", "catalog_invalid", "catalog tampered@1.0.0.json is refused: hash mismatch"],
    ["misnamed", "shop@1.0.0.000000000000.json", "catalog_invalid", "its name says hash 000000000000, its content is"],
    [
      "old format",
      "shop-v1@1.0.0.json",
      "catalog_invalid",
      'catalog shop-v1@1.0.0.json is refused: catalog format "toolsearch.catalog/v1" is not read by this build, which reads "toolsearch.catalog/v2"',
    ],
  ])("%s", async (_, file, code, message) => {
    for (const [m, p, body] of [
      ["GET", "/healthz"],
      ["GET", "/v1/catalog"],
      ["POST", "/v1/sessions", { model: "gpt-4o" }],
      ["GET", `/v1/sessions/ses_${"B".repeat(32)}`],
      ["GET", "/nope"],
    ] as const) {
      const r = await callWith({ CATALOG: file }, m, p, body);
      expect(r.status, `${m} ${p}`).toBe(503);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.message).toContain(message);
    }
  });

  it("a correctly named content-addressed file is accepted", async () => {
    const listing = await callWith(V1, "GET", "/v1/catalog");
    const named = `shop@1.0.0.${listing.body.hash.slice(0, 12)}.json`;
    const r = await callWith({ CATALOG: named }, "GET", "/healthz");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-catalog")).toBe(`shop@1.0.0#${listing.body.hash.slice(0, 12)}`);
  });
});
