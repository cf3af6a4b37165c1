// What the page reads, inside workerd: GET / and its files from the bundle (catalog files still
// private, revalidation a 304), per-server token sums in GET /v1/catalog, the tool rows, the policy preview (the same
// decision a new session of the caller's tenant freezes, listing form and access rules included,
// and nothing stored), a session's history (searches, activations, splices written by the chat
// endpoint) and the words each search result matched.
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { verifyCatalog, type Catalog } from "../../worker/core/catalog.ts";
import worker from "./main.ts";
import { files } from "./catalogs/files.ts";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_A, AUTH_B, BASE, call, callWith, newSession, search, sessionObject, storedObjects, modelLane, type Json } from "./helpers.ts";

/** A request without a key, its body as text (the page's files are not JSON). */
async function open(path: string) {
  const res = await exports.default.fetch(new Request(`${BASE}${path}`));
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function shopCatalog(): Promise<Catalog> {
  return (await verifyCatalog(files.catalogs["shop@1.0.0.json"]!)).catalog;
}

describe("the page", () => {
  it("GET / serves the page's HTML, which names only its own script and stylesheet", async () => {
    const r = await open("/");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/html/);
    expect(r.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(r.text).toContain('<script src="/page/page.js" defer></script>');
    expect(r.text).toContain('<link rel="stylesheet" href="/page/page.css">');
    expect(r.text).not.toMatch(/https?:\/\//); // no CDN, nothing from elsewhere
    for (const [file, type] of [
      ["page.js", /javascript/],
      ["page.css", /^text\/css/],
    ] as const) {
      const f = await open(`/page/${file}`);
      expect(f.status, file).toBe(200);
      expect(f.headers.get("content-type")).toMatch(type);
      expect(f.text.length).toBeGreaterThan(1000);
    }
  });

  it("answers a browser's revalidation with a 304 while the file is unchanged, and HEAD without a body", async () => {
    for (const path of ["/", "/page/page.js", "/page/page.css"]) {
      const first = await exports.default.fetch(new Request(`${BASE}${path}`));
      const etag = first.headers.get("etag");
      expect(etag, path).toMatch(/^"[0-9a-f]{16}"$/);
      await first.text();
      const again = await exports.default.fetch(new Request(`${BASE}${path}`, { headers: { "if-none-match": etag! } }));
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe("");
      const other = await exports.default.fetch(new Request(`${BASE}${path}`, { headers: { "if-none-match": '"0000000000000000"' } }));
      expect(other.status, path).toBe(200);
      expect((await other.text()).length, path).toBeGreaterThan(100);
    }
    const head = await exports.default.fetch(new Request(`${BASE}/`, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await head.text()).toBe("");
  });

  it("serves nothing else: other page names and catalog files, bundled or not, are 404", async () => {
    for (const path of ["/page/other.js", "/page/index.html", "/shop@1.0.0.json", "/page/..%2Fshop@1.0.0.json", "/page/", "/files.ts"]) {
      const r = await open(path);
      expect(r.status, path).toBe(404);
      expect(r.text, path).not.toContain("mcp__shop__");
    }
  });
});

describe("GET /v1/catalog and /v1/catalog/tools", () => {
  it("sums each server's tokens from the catalog's per-tool counts; the totals are the sums of those", async () => {
    const cat = await shopCatalog();
    const r = await call("GET", "/v1/catalog");
    expect(r.status).toBe(200);
    expect(r.body.label).toBe(r.headers.get("x-catalog"));
    const [shop] = r.body.servers;
    const deferred = cat.tools.filter((t) => !t.alwaysLoad);
    const always = cat.tools.filter((t) => t.alwaysLoad);
    expect(always.map((t) => t.name)).toEqual(["mcp__shop__search_products"]);
    const sum = (list: typeof cat.tools, key: "definition" | "name") => list.reduce((n, t) => n + t.tokens[key], 0);
    expect(shop.tokens).toMatchObject({
      full: sum(cat.tools, "definition"),
      names: sum(deferred, "name"),
      core: sum(always, "definition"),
    });
    expect(r.body.tokens).toMatchObject({ fullInjection: shop.tokens.full, deferredNames: shop.tokens.names, coreTools: shop.tokens.core });
    // one server: its part of each form plus the form's header is the section the CLI tokenized whole
    const { headers, sections } = cat.listing;
    for (const form of ["names", "grouped", "servers"] as const) expect(headers[form] + shop.tokens[form], form).toBe(sections[form]);
    expect(r.body.tokens.listing).toEqual(sections);
  });

  it("counts every tool as a TypeScript declaration beside its JSON schema, as declarations.ts renders it tokenized", async () => {
    const cat = await shopCatalog();
    // each shop tool's declaration, tokenized on the Node side by prepare-catalogs.ts
    const expected = JSON.parse(files.catalogs["shop@1.0.0.declaration-tokens.json"]!) as Record<string, number>;
    expect(Object.keys(expected)).toEqual(cat.tools.map((t) => t.name));
    const total = Object.values(expected).reduce((a, b) => a + b, 0);
    const r = await call("GET", "/v1/catalog");
    expect(r.body.tokens.declarations).toBe(total);
    expect(r.body.tokens.fullInjection).toBe(cat.tools.reduce((n, t) => n + t.tokens.definition, 0));
    expect(r.body.tokens.declarations).toBeLessThan(r.body.tokens.fullInjection);
    const rows = (await call("GET", "/v1/catalog/tools")).body.tools as Array<{ name: string; tokens: { declaration: number } }>;
    expect(Object.fromEntries(rows.map((t) => [t.name, t.tokens.declaration]))).toEqual(expected);
  });

  it("lists every tool with its server, description and counts, but no schema", async () => {
    const cat = await shopCatalog();
    const r = await call("GET", "/v1/catalog/tools");
    expect(r.status).toBe(200);
    expect(r.body.tools.map((t: { name: string }) => t.name)).toEqual(cat.tools.map((t) => t.name));
    const refund = r.body.tools.find((t: { name: string }) => t.name === "mcp__shop__refund_order");
    expect(refund).toEqual({
      name: "mcp__shop__refund_order",
      server: "shop",
      originalName: "refund_order",
      description: cat.tools.find((t) => t.name === refund.name)!.description,
      tokens: cat.tools.find((t) => t.name === refund.name)!.tokens,
      alwaysLoad: false,
    });
    expect(r.text).not.toContain("inputSchema");
  });

  it("needs a key like every /v1 route", async () => {
    for (const path of ["/v1/catalog", "/v1/catalog/tools", "/v1/catalog/policy?model=gpt-4o"]) {
      const r = await call("GET", path, undefined, { authorization: "Bearer wrong-key-wrong-key-00" });
      expect(r.status, path).toBe(401);
    }
  });
});

describe("GET /v1/catalog/policy", () => {
  const names = (prompt: Json) =>
    prompt.tools.map((t: { function: { name: string } }) => t.function.name).filter((n: string) => n !== "toolSearch");
  /** The preview and a new session for the same fields and key: the same frozen decision. */
  async function previewThenCreate(fields: Record<string, unknown>, vars: Record<string, unknown> = {}, auth = AUTH_A) {
    const q = new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)]));
    const before = await storedObjects();
    const preview = await callWith(vars, "GET", `/v1/catalog/policy?${q}`, undefined, auth);
    expect(preview.status, JSON.stringify(fields)).toBe(200);
    expect(await storedObjects(), "the preview stores nothing").toBe(before);
    const session = await callWith(vars, "POST", "/v1/sessions", fields, auth);
    expect(session.status, JSON.stringify(fields)).toBe(201);
    const p = preview.body;
    expect({ mode: p.mode, reason: p.reason, listing: p.listing, coreTools: p.coreTools }, JSON.stringify(fields)).toEqual({
      mode: session.body.mode,
      reason: session.body.reason,
      listing: session.body.listing,
      coreTools: names(session.body.prompt),
    });
    return { preview: p, session: session.body };
  }

  it("decides exactly as a new session would, for the same fields, listing form included, and stores nothing", async () => {
    const cases = [
      { model: "gpt-4o" },
      { model: "tiny-model" },
      { model: "claude-3-haiku-20240307" },
      { model: "some-local-model", contextWindow: 1000 },
      { model: "gpt-4o", deferral: "on" },
      { model: "gpt-4o", profile: "refunds-subagent" },
      { model: "gpt-4o", profile: "support", deferral: "on" },
      { model: "gpt-4o", deferral: "on", listing: "grouped" },
      { model: "gpt-4o", deferral: "on", profile: "lean" },
      { model: "tiny-model", listing: "none" },
    ];
    const previews = [];
    for (const c of cases) previews.push((await previewThenCreate(c)).preview);
    expect(new Set(previews.map((p) => p.mode))).toEqual(new Set(["deferred", "full"]));
    expect(new Set(previews.map((p) => p.listing))).toEqual(new Set([null, "names", "grouped", "servers", "none"]));
    const lean = previews[8];
    expect(lean.reason).toMatch(/listing "servers" \(\d+ tokens\): set by profile "lean"$/);
    // the whole catalog is visible to tenant A under the test deployment's rules
    expect(previews[4].access).toEqual({ rules: "default", catalogTools: 13, visibleTools: 13, deniedTools: 0 });
    expect(previews[4].deferredTools).toBe(12); // all but the alwaysLoad search_products
  });

  it("applies the caller's tenant's access rules, as POST /v1/sessions freezes them; denied tools are counted, never named", async () => {
    const access = {
      disabled: ["mcp__shop__send_email"],
      tenants: { "tenant-b": { allow: ["mcp__shop__get_order", "mcp__shop__search_products"] } },
    };
    const vars = { POLICY: { ...(env.POLICY as object), access } };
    // tenant A: one tool disabled for everyone, hidden from the names listing
    const a = await previewThenCreate({ model: "gpt-4o", deferral: "on", listing: "names" }, vars);
    expect(a.preview.access).toEqual({ rules: "default", catalogTools: 13, visibleTools: 12, deniedTools: 1 });
    const listed = (a.session.prompt.system as string).split("\n").filter((l) => l.startsWith("mcp__"));
    expect(listed).toHaveLength(a.preview.deferredTools);
    expect(listed).not.toContain("mcp__shop__send_email");
    // tenant B sees two tools: under tiny-model's 2,000-token window the whole catalog is deferred,
    // its view is small enough to inject in full (the old preview, over the whole catalog, said deferred)
    const whole = await previewThenCreate({ model: "tiny-model" });
    expect(whole.preview.mode).toBe("deferred");
    const b = await previewThenCreate({ model: "tiny-model" }, vars, AUTH_B);
    expect(b.preview).toMatchObject({
      mode: "full",
      listing: null,
      deferredTools: 0,
      access: { rules: "tenant tenant-b", catalogTools: 13, visibleTools: 2, deniedTools: 11 },
    });
    expect([...b.preview.coreTools].sort()).toEqual(["mcp__shop__get_order", "mcp__shop__search_products"]);
    const text = JSON.stringify(b.preview);
    for (const hidden of ["refund_order", "send_email", "cancel_order"]) expect(text).not.toContain(hidden);
  });

  it("answers bad fields as POST /v1/sessions does: 400 naming the field", async () => {
    const bad: Array<[string, RegExp]> = [
      ["", /^model: required$/],
      ["model=", /^model: must not be empty$/],
      ["model=gpt-4o&deferral=maybe", /^deferral: must be "auto", "on" or "off"$/],
      ["model=gpt-4o&contextWindow=12x", /^contextWindow: must be an integer from 1000 to 100000000$/],
      ["model=gpt-4o&contextWindow=10", /^contextWindow: must be an integer from 1000 to 100000000$/],
      ["model=gpt-4o&profile=nope", /^unknown profile "nope" \(known: /],
      ["model=gpt-4o&activation=inject", /^unknown field "activation"$/],
      ["model=gpt-4o&listing=some", /^listing: must be "auto", "names", "grouped", "servers" or "none"$/],
    ];
    for (const [q, message] of bad) {
      const r = await call("GET", `/v1/catalog/policy?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.message, q).toMatch(message);
    }
  });
});

describe("GET /v1/sessions/:id/history", () => {
  it("lists every toolSearch with what it loaded, and the activations in order with their times", async () => {
    const s = await newSession();
    await search(s.id, "select:mcp__shop__refund_order");
    await search(s.id, "track parcel shipment", 2);
    await search(s.id, "select:mcp__shop__refund_order");
    const state = (await call("GET", `/v1/sessions/${s.id}`)).body;
    const r = await call("GET", `/v1/sessions/${s.id}/history`);
    expect(r.status).toBe(200);
    expect(r.body.searches.map((e: { query: string }) => e.query)).toEqual([
      "select:mcp__shop__refund_order",
      "track parcel shipment",
      "select:mcp__shop__refund_order",
    ]);
    expect(r.body.searches[0].loaded).toEqual(["mcp__shop__refund_order"]);
    expect(r.body.searches[2].loaded).toEqual([]);
    expect(r.body.activations.map((a: { name: string }) => a.name)).toEqual(state.activations);
    for (const t of [...r.body.searches, ...r.body.activations])
      expect(Date.parse(t.at)).toBeGreaterThanOrEqual(Date.parse(state.createdAt));
    expect(r.body.splices).toEqual([]);
  });

  it("is read-only: it does not count as use of the session", async () => {
    const s = await newSession();
    const lastUsed = () =>
      runInDurableObject(
        sessionObject(s.id),
        (_o: SessionDO, st) => st.storage.sql.exec<{ t: number }>("SELECT last_used_at AS t FROM session").one().t,
      );
    const before = await lastUsed();
    await new Promise((r) => setTimeout(r, 5));
    expect((await call("GET", `/v1/sessions/${s.id}/history`)).status).toBe(200);
    expect(await lastUsed()).toBe(before);
  });

  it("is 404 for an unknown id and for another tenant's session", async () => {
    const s = await newSession();
    expect((await call("GET", `/v1/sessions/${s.id}/history`, undefined, AUTH_B)).status).toBe(404);
    expect((await call("GET", "/v1/sessions/ses_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/history")).status).toBe(404);
    expect((await call("GET", "/v1/sessions/nonsense/history")).status).toBe(404);
  });

  it("shows the splice the chat endpoint stored for a hidden toolSearch round", async () => {
    const upstream = modelLane();
    const req = new Request(`${BASE}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-toolsearch-listing": "names", ...AUTH_A },
      body: JSON.stringify({ model: "tiny-model", messages: [{ role: "user", content: "refund order 42" }] }),
    });
    const res = await worker.fetch(req, { ...env, OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test" } as Env, createExecutionContext());
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { choices: Array<{ message: { tool_calls: Array<{ function: { name: string } }> } }> };
    expect(answer.choices[0]!.message.tool_calls[0]!.function.name).toBe("mcp__shop__refund_order");
    const id = res.headers.get("x-toolsearch-session")!;
    const h = (await call("GET", `/v1/sessions/${id}/history`)).body;
    expect(h.searches).toEqual([{ at: expect.any(String), query: "select:mcp__shop__refund_order", loaded: ["mcp__shop__refund_order"] }]);
    expect(h.splices).toHaveLength(1);
    const [splice] = h.splices;
    expect(splice.at).toBe(1); // the answer sits after the one user message
    expect(splice.hidden.map((m: { role: string }) => m.role)).toEqual(["assistant", "tool"]);
    expect(splice.hidden[0].tool_calls[0].function.name).toBe("toolSearch");
    expect(splice.reply.upstream.tool_calls[0].function.name).toBe("mcp__shop__refund_order");
  });
});

describe("search results carry the words they matched", () => {
  it("each match lists the query words its tool holds, and only those", async () => {
    const s = await newSession();
    const r = await search(s.id, "refund order payment", 5);
    expect(r.status).toBe(200);
    const cat = await shopCatalog();
    for (const m of r.body.matches as Array<{ name: string; words: string[] }>) {
      const tool = cat.tools.find((t) => t.name === m.name)!;
      const text = `${tool.name} ${tool.description}`.toLowerCase();
      expect(m.words.length, m.name).toBeGreaterThan(0);
      for (const w of m.words) expect(text, `${m.name}: ${w}`).toContain(w);
    }
    expect(r.body.matches[0].words).toEqual(expect.arrayContaining(["refund", "order"]));
    const selected = await search(s.id, "select:mcp__shop__get_order");
    expect(selected.body.matches).toEqual([
      { name: "mcp__shop__get_order", description: expect.any(String), score: 1, words: [], fields: [] },
    ]);
  });
});
