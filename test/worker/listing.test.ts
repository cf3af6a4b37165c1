// Listing forms as the API serves them: each form's system section is frozen per session and the
// same bytes across sessions; `auto` picks by the budget (exactly at it, one token over) with the
// reason saying why; profiles and requests force a form; select: takes grouped short names.
import { describe, expect, it } from "vitest";
import { call, newSession, promptOf, search } from "./helpers.ts";

const FORMS = ["names", "grouped", "servers", "none"] as const;
const create = (body: Record<string, unknown>) => call("POST", "/v1/sessions", body);

/** The pinned shop catalog's section size per form (its stored token pieces, summed). */
async function sizes(): Promise<Record<(typeof FORMS)[number], number>> {
  return (await call("GET", "/v1/catalog")).body.tokens.listing;
}

describe("listing forms", () => {
  it.each(FORMS)("%s: frozen for the session, identical across sessions with the same catalog, form and profile", async (form) => {
    const [a, b] = [
      await newSession({ model: "gpt-4o", deferral: "on", listing: form }),
      await newSession({ model: "gpt-4o", deferral: "on", listing: form }),
    ];
    expect(a).toMatchObject({
      mode: "deferred",
      listing: form,
      reason: `deferral is on for this session; listing "${form}" (${(await sizes())[form]} tokens): requested for this session`,
    });
    expect(b.prompt.system).toBe(a.prompt.system);
    expect(b.prompt.promptCacheKey).toBe(a.prompt.promptCacheKey);
    await search(a.id, "select:mcp__shop__refund_order");
    await search(a.id, "track parcel");
    const later = await promptOf(a.id);
    expect(later.system).toBe(a.prompt.system);
    expect((await call("GET", `/v1/sessions/${a.id}`)).body.listing).toBe(form);
  });

  it("each form says what it should: names, short names per server, servers with counts, counts only", async () => {
    const system = Object.fromEntries(
      await Promise.all(FORMS.map(async (f) => [f, (await newSession({ model: "gpt-4o", deferral: "on", listing: f })).prompt.system])),
    );
    expect(system.names).toContain("\nmcp__shop__get_order\nmcp__shop__get_product\n");
    expect(system.grouped).toMatch(/\nshop: apply_coupon, cancel_order, create_order, .*, update_shipping_address\n$/);
    expect(system.grouped).toContain("a tool's full name is mcp__<server>__<short name>");
    expect(system.servers).toMatch(/\nshop \(12 tools\): [^\n]+\n$/);
    expect(system.servers).not.toContain("get_order");
    expect(system.none).toContain("12 tools from 1 server exist but are not loaded");
    expect(system.none).not.toContain("mcp__shop__");
    // the alwaysLoad tool is a core tool: listed in no form
    for (const f of FORMS) expect(system[f]).not.toContain("search_products");
    expect(new Set(Object.values(system)).size).toBe(4);
    // richest first, smallest last, as the catalog's stored sizes say
    const s = await sizes();
    expect(s.names).toBeGreaterThan(s.grouped);
    expect(s.grouped).toBeGreaterThan(s.servers);
    expect(s.servers).toBeGreaterThan(s.none);
  });

  it("profiles force a form; the session's own listing wins over its profile's", async () => {
    const lean = await create({ model: "gpt-4o", deferral: "on", profile: "lean" });
    expect(lean.body).toMatchObject({ listing: "servers", reason: expect.stringContaining('listing "servers"') });
    expect(lean.body.reason).toContain('set by profile "lean"');
    const asked = await create({ model: "gpt-4o", deferral: "on", profile: "lean", listing: "grouped" });
    expect(asked.body.listing).toBe("grouped");
    const auto = await create({ model: "gpt-4o", deferral: "on", profile: "lean", listing: "auto" });
    expect(auto.body.listing).toBe("names");
  });

  it("full mode has no listing", async () => {
    const r = await create({ model: "gpt-4o", deferral: "off", listing: "servers" });
    expect(r.body).toMatchObject({ mode: "full", listing: null });
    expect(r.body.prompt.system).toBe("");
  });
});

describe("auto at the budget boundaries (listingBudget 0.02 of the context window)", () => {
  it("takes a form whose size is exactly the budget, and the next form one token under it", async () => {
    const s = await sizes();
    const at = (tokens: number) => create({ model: "gpt-4o", deferral: "on", contextWindow: tokens * 50 });
    const exactly = await at(s.names);
    expect(exactly.body.listing).toBe("names");
    expect(exactly.body.reason).toBe(
      `deferral is on for this session; listing "names": ${s.names} tokens fit the listing budget of ${s.names} tokens (2% of gpt-4o's ${s.names * 50}-token context)`,
    );
    const over = await at(s.names - 1);
    expect(over.body.listing).toBe("grouped");
    expect(over.body.reason).toContain(
      `listing "grouped" (${s.grouped} tokens): names (${s.names}) exceed the listing budget of ${s.names - 1} tokens`,
    );
    expect((await at(s.grouped)).body.listing).toBe("grouped");
    expect((await at(s.grouped - 1)).body.listing).toBe("servers");
    expect((await at(s.servers)).body.listing).toBe("servers");
    const none = await at(s.servers - 1);
    expect(none.body.listing).toBe("none");
    expect(none.body.reason).toContain(`names (${s.names}), grouped (${s.grouped}) and servers (${s.servers}) exceed`);
    // none is the floor, also when it does not fit either
    const floor = await at(s.none - 1);
    expect(floor.body).toMatchObject({ listing: "none", reason: expect.stringContaining("none is the floor, over it too") });
  });

  it("a model's own window decides by default: the small shop catalog keeps its names at 128k", async () => {
    const r = await create({ model: "gpt-4o", deferral: "on" });
    expect(r.body.listing).toBe("names");
    expect(r.body.reason).toContain("(2% of gpt-4o's 128000-token context)");
  });
});

describe("select: with grouped short names", () => {
  it("resolves <server>.<short>, <server>__<short>, <server>: <short> and a bare short name", async () => {
    const s = await newSession({ model: "gpt-4o", deferral: "on", listing: "grouped" });
    const r = await search(s.id, "select:shop.refund_order,shop__track_shipment,shop: get_order,cancel_order");
    expect(r.status).toBe(200);
    expect(r.body.loaded).toEqual([
      "mcp__shop__refund_order",
      "mcp__shop__track_shipment",
      "mcp__shop__get_order",
      "mcp__shop__cancel_order",
    ]);
    expect((await promptOf(s.id)).tools.map((t: { function: { name: string } }) => t.function.name).slice(-4)).toEqual(r.body.loaded);
  });

  it("an unknown short name gets the closest full names; nothing is loaded for it", async () => {
    const s = await newSession();
    const r = await search(s.id, "select:shop.refund_ordr,refnd_order");
    expect(r.body.loaded).toEqual([]);
    expect(r.body.result).toMatch(/^Unknown tool "shop\.refund_ordr"\. Closest names: mcp__shop__refund_order, /m);
    expect(r.body.result).toMatch(/^Unknown tool "refnd_order"\. Closest names: mcp__shop__refund_order, /m);
  });
});
