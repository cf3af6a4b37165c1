// Who is calling, inside workerd: API_KEYS values as a tenant (as before) or {tenant, user}, and
// keys that may name the user per request (assertsUser + x-toolsearch-user). A session is issued
// for its principal: another user of the same tenant gets the 404 of an unknown id. Audit rows
// name the user, in the session and in D1. Bad key files and bad SERVERS oauth entries are errors
// that say what is wrong.
import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { callWith, d1Rows, EDGE, KEY_A, sessionObject, type Json } from "./helpers.ts";

const ALICE = "principal-key-alice-0000";
const BOB = "principal-key-bob-000000";
const BACKEND = "principal-key-backend-00";
const ADMIN = "principal-key-acme-admin0";
const KEYS = {
  API_KEYS: JSON.stringify({
    [KEY_A]: "tenant-a",
    [ALICE]: { tenant: "acme", user: "alice" },
    [BOB]: { tenant: "acme", user: "bob" },
    [BACKEND]: { tenant: "acme", assertsUser: true },
    [ADMIN]: "acme",
  }),
};
const as = (key: string, user?: string) => ({ authorization: `Bearer ${key}`, ...(user ? { "x-toolsearch-user": user } : {}) });
const api = (h: Record<string, string>, method: string, path: string, body?: unknown, vars: Record<string, unknown> = {}) =>
  callWith({ ...KEYS, ...vars }, method, path, body, h);
const create = async (h: Record<string, string>) =>
  (await api(h, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body as Json;

describe("principals", () => {
  it("a session is its principal's: another user of the tenant, or a backend key naming another user, gets a 404", async () => {
    const s = await create(as(ALICE));
    expect((await api(as(ALICE), "GET", `/v1/sessions/${s.id}`)).status).toBe(200);
    expect((await api(as(BOB), "GET", `/v1/sessions/${s.id}`)).status).toBe(404);
    // a backend that names alice speaks for the same principal (acme, alice)
    expect((await api(as(BACKEND, "alice"), "GET", `/v1/sessions/${s.id}`)).status).toBe(200);
    const viaBackend = await create(as(BACKEND, "carol"));
    expect((await api(as(BACKEND, "carol"), "GET", `/v1/sessions/${viaBackend.id}`)).status).toBe(200);
    expect((await api(as(BACKEND, "dave"), "GET", `/v1/sessions/${viaBackend.id}`)).status).toBe(404);
    expect((await api(as(BACKEND), "GET", `/v1/sessions/${viaBackend.id}`)).status).toBe(404);
  });

  it("audit rows name the user, in the session and in D1; a tenant-only key's rows name none", async () => {
    const s = await create(as(ALICE));
    await api(as(ALICE), "POST", `/v1/sessions/${s.id}/tool-search`, { query: "select:mcp__shop__get_order" });
    const own = (await api(as(ALICE), "GET", `/v1/sessions/${s.id}/audit`)).body.events as Json[];
    expect(own.map((e) => [e.type, e.user])).toEqual([
      ["activation", "alice"],
      ["search", "alice"],
    ]);
    const t = await create(as(KEY_A));
    await api(as(KEY_A), "POST", `/v1/sessions/${t.id}/tool-search`, { query: "select:mcp__shop__get_order" });
    expect(((await api(as(KEY_A), "GET", `/v1/sessions/${t.id}/audit`)).body.events as Json[]).map((e) => e.user)).toEqual([null, null]);
    await runDurableObjectAlarm(sessionObject(s.id, "acme"));
    expect((await d1Rows("WHERE session = ?", s.id)).map((r) => [r.tenant, r.user])).toEqual([
      ["acme", "alice"],
      ["acme", "alice"],
    ]);
    // the tenant's trail from D1: a user's key sees only its own events, the tenant's key everyone's
    const b = await create(as(BOB));
    await api(as(BOB), "POST", `/v1/sessions/${b.id}/tool-search`, { query: "select:mcp__shop__get_order" });
    await runDurableObjectAlarm(sessionObject(b.id, "acme"));
    const users = async (key: string) =>
      new Set(((await api(as(key), "GET", "/v1/audit?limit=500")).body.events as Json[]).map((e) => e.user));
    expect(await users(ALICE)).toEqual(new Set(["alice"]));
    expect(await users(BOB)).toEqual(new Set(["bob"]));
    expect(await users(ADMIN)).toEqual(new Set(["alice", "bob"]));
  });

  it("x-toolsearch-user from a key without assertsUser is a 403; a malformed user a 400", async () => {
    const refused = await api(as(ALICE, "bob"), "POST", "/v1/sessions", { model: "gpt-4o" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/x-toolsearch-user: this API key may not name a user/);
    const bad = await api(as(BACKEND, "no spaces"), "POST", "/v1/sessions", { model: "gpt-4o" });
    expect(bad.status).toBe(400);
  });

  it("a key file with a bad entry is a 500 that says which rule it breaks", async () => {
    for (const [value, message] of [
      [{ tenant: "acme", role: "admin" }, /"role" is not a key setting/],
      [{ tenant: "acme", user: "a b" }, /a user must be 1-128/],
      [{ user: "alice" }, /every tenant must be/],
    ] as const) {
      const r = await callWith({ API_KEYS: JSON.stringify({ [ALICE]: value }) }, "GET", "/v1/catalog", undefined, as(ALICE));
      expect(r.status).toBe(500);
      expect(r.body.error.message).toMatch(message);
    }
  });

  it("a SERVERS oauth entry with a client secret written as a value, a bad issuer, or a stray setting, is reported by /healthz", async () => {
    const servers = (entry: Json) => JSON.stringify({ everything: { url: "http://127.0.0.1:1/mcp", ...entry } });
    for (const [entry, message] of [
      [{ auth: "oauth", clientId: "abc", clientSecret: "s3cret" }, /clientSecret must name a Worker secret/],
      [{ scopes: ["read"] }, /scopes needs "auth": "oauth"/],
      [{ auth: "basic" }, /auth must be "oauth"/],
      [{ issuer: "https://as.example/" }, /issuer needs "auth": "oauth"/],
      // an issuer is an https URL (http only on loopback) with no query or fragment (RFC 8414)
      [{ auth: "oauth", issuer: "http://as.example/" }, /issuer must be the authorization server's issuer/],
      [{ auth: "oauth", issuer: "https://as.example/?tenant=1" }, /issuer must be the authorization server's issuer/],
      [{ auth: "oauth", issuer: 7 }, /issuer must be the authorization server's issuer/],
    ] as const) {
      const r = await callWith({ ...EDGE, SERVERS: servers(entry) }, "GET", "/healthz", undefined, {});
      expect(r.body.problems[0]).toMatch(message);
    }
  });
});
