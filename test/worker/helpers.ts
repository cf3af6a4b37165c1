// Calls into the real Worker inside workerd. `call` goes through the deployed entry (exports);
// `callWith` runs the same fetch handler with vars overridden (another pinned catalog), still
// with the test catalogs bundled (test/worker/main.ts) and the real Durable Object bindings. Both check every successful REST answer against its
// schema (worker/wire/answers.ts), so the types the page imports cannot drift from what routes answer.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { inject } from "vitest";
import type { z } from "zod";
import worker from "./main.ts";
import { runAnswer } from "../../worker/wire/code.ts";
import * as answers from "../../worker/wire/answers.ts";
import type { LiveRules } from "../../worker/core/gate.ts";

export const BASE = "https://toolsearch.test";

// the API keys of the test deployment (vitest.config.ts gives the workers project API_KEYS)
export const KEY_A = "test-key-tenant-a-000000";
export const KEY_B = "test-key-tenant-b-000000";
// tenant-q, tenant-s, tenant-m and tenant-u: low quotas (wrangler.toml [env.test.vars.QUOTAS]), used by quotas.test.ts and quotas-work.test.ts only
export const KEY_Q = "test-key-tenant-q-000000";
export const KEY_S = "test-key-tenant-s-000000";
export const KEY_M = "test-key-tenant-m-000000";
export const KEY_U = "test-key-tenant-u-000000";
export const TEST_API_KEYS = JSON.stringify({
  [KEY_A]: "tenant-a",
  [KEY_B]: "tenant-b",
  [KEY_Q]: "tenant-q",
  [KEY_S]: "tenant-s",
  [KEY_M]: "tenant-m",
  [KEY_U]: "tenant-u",
});
/** Wait out the end of the current quota window when it is under `margin` ms away, so a test's requests fall in one window. */
export async function clearOfBoundary(windowMs: number, margin = 5000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < margin) await new Promise((r) => setTimeout(r, left + 50));
}

export const AUTH_A = { authorization: `Bearer ${KEY_A}` };
export const AUTH_B = { authorization: `Bearer ${KEY_B}` };

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A request as tenant A unless `headers` says otherwise (`authorization: ""` sends none). */
export function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  const all: Record<string, string> = { ...AUTH_A, ...headers };
  if (!all.authorization) delete all.authorization;
  const init: RequestInit = { method, headers: all };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return new Request(`${BASE}${path}`, init);
}

/** The schema of each REST answer (worker/wire/answers.ts), by method and path. */
const ANSWERS: Array<[string, RegExp, z.ZodTypeAny]> = [
  ["POST", /^\/v1\/sessions$/, answers.createdSession],
  ["GET", /^\/v1\/sessions\/[^/]+$/, answers.sessionInfo],
  ["GET", /^\/v1\/sessions\/[^/]+\/prompt$/, answers.promptAnswer],
  ["GET", /^\/v1\/sessions\/[^/]+\/history$/, answers.historyAnswer],
  ["POST", /^\/v1\/sessions\/[^/]+\/tool-search$/, answers.searchAnswer],
  ["GET", /^\/v1\/(sessions\/[^/]+\/)?audit$/, answers.auditPageAnswer],
  ["GET", /^\/v1\/catalog$/, answers.catalogInfo],
  ["GET", /^\/v1\/catalog\/tools$/, answers.catalogTools],
  ["GET", /^\/v1\/catalog\/policy$/, answers.policyAnswer],
  ["GET", /^\/healthz$/, answers.healthAnswer],
  ["POST", /^\/v1\/sessions\/[^/]+\/code$/, runAnswer],
];

/**
 * A response as the tests read it. A successful REST answer must parse with its schema, which is
 * strict: a field a route answers that the page's types do not know fails the test.
 */
async function answer(method: string, path: string, res: Response) {
  const text = await res.text();
  // the page's files are not JSON
  const body = (text && !res.headers.get("content-type")?.startsWith("text/") ? JSON.parse(text) : null) as Json;
  const route = ANSWERS.find(([m, re]) => m === method && re.test(path.split("?")[0]!));
  if (res.ok && route) {
    const parsed = route[2].safeParse(body);
    if (!parsed.success) throw new Error(`${method} ${path} answered outside its schema: ${parsed.error.message}`);
  }
  return { status: res.status, headers: res.headers, body, text };
}

export async function call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  return answer(method, path, await exports.default.fetch(request(method, path, body, headers)));
}

export async function callWith(
  vars: Record<string, unknown>,
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request(method, path, body, headers), { ...env, ...vars } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return answer(method, path, res);
}

/** A fetch into the same handler with vars overridden, for an SDK client (`fetch` option); a stream is read as it comes. */
export const fetchWith =
  (vars: Record<string, unknown>) =>
  (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
    worker.fetch(new Request(input, init), { ...env, ...vars } as Env, createExecutionContext());

export async function newSession(body: Record<string, unknown> = { model: "gpt-4o", deferral: "on" }) {
  const r = await call("POST", "/v1/sessions", body);
  if (r.status !== 201) throw new Error(`session create failed: ${r.status} ${r.text}`);
  return r.body as Json;
}

export const search = (id: string, query: unknown, limit?: number) =>
  call("POST", `/v1/sessions/${id}/tool-search`, limit === undefined ? { query } : { query, limit });
export const promptOf = async (id: string, format = "openai") =>
  (await call("GET", `/v1/sessions/${id}/prompt?format=${format}`)).body as Json;

/**
 * How many objects of the namespace hold storage, leaving out the test keys' quota counters: a
 * key's first request makes its counter (worker/session/quota-role.ts), which is not session state.
 */
export async function storedObjects(): Promise<number> {
  const { listDurableObjectIds } = await import("cloudflare:test");
  const counters = new Set<string>();
  for (const [key, tenant] of Object.entries(JSON.parse(TEST_API_KEYS) as Record<string, string>)) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key)));
    const id = [...digest.subarray(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
    counters.add(env.SESSIONS.idFromName(`quota:${tenant}/${id}`).toString());
  }
  return (await listDurableObjectIds(env.SESSIONS)).filter((id) => !counters.has(id.toString())).length;
}

/** The Durable Object of a session, named as the Worker names it: `<tenant>/<id>`. */
export const sessionObject = (id: string, tenant = "tenant-a") => env.SESSIONS.getByName(`${tenant}/${id}`);

// Edge execution: sessions on the `edge` catalog (server-everything and the fixture server, which
// edge-setup.ts runs and SERVERS names), with the policy's access rules overridden per test.
export const EDGE = { CATALOG: "edge@1.0.0.json" };

export function edgeVars(access?: Record<string, unknown>): Record<string, unknown> {
  return access ? { ...EDGE, POLICY: { ...(env.POLICY as object), access } } : EDGE;
}

export async function edgeSession(access?: Record<string, unknown>, headers?: Record<string, string>, body: Record<string, unknown> = {}) {
  const r = await callWith(edgeVars(access), "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", ...body }, headers);
  if (r.status !== 201) throw new Error(`session create failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Json;
}

export const callTool = (id: string, name: string, args: unknown, headers?: Record<string, string>) =>
  callWith(EDGE, "POST", `/v1/sessions/${id}/tools/${name}/call`, args === undefined ? {} : { arguments: args }, headers);

/**
 * A lane of the scripted model (test/fixtures/scripted-llm.ts, one server for the whole project):
 * its base URL (`.../f/<random>/v1`), whose records, faults and /_control routes (the URL without
 * /v1, then /_control/...) no other file sees. One a file, drawn once at its top (or one a test).
 */
export const modelLane = (): string => `${new URL(inject("upstreamUrl")).origin}/f/${crypto.randomUUID()}/v1`;

/** The fixture server's /_control routes (stats, expire, fail500, reset). */
export async function fixture(path: string, body?: unknown): Promise<Json> {
  const { inject } = await import("vitest");
  const res = await fetch(
    `${inject("edgeFixture")}/_control/${path}`,
    body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
  );
  return res.json();
}

/** Every audit row of tenant A in D1, oldest first. */
export async function d1Rows(where = "", ...binds: unknown[]): Promise<Json[]> {
  return (
    await env.AUDIT.prepare(`SELECT * FROM audit_events ${where} ORDER BY id`)
      .bind(...binds)
      .all()
  ).results;
}

/** The fixture server's MCP session a session object stores (test files share that server). */
export async function upstreamOf(id: string, server = "fixture", tenant = "tenant-a"): Promise<string | null> {
  const { runInDurableObject } = await import("cloudflare:test");
  return runInDurableObject(
    sessionObject(id, tenant),
    (_o, state) =>
      state.storage.sql.exec<{ session_id: string }>("SELECT session_id FROM upstream WHERE server = ?", server).toArray()[0]?.session_id ??
      null,
  );
}

/** The fixture's record of calls made in one MCP session. */
export async function fixtureCalls(session: string | null): Promise<Json[]> {
  return ((await fixture("stats")).calls as Json[]).filter((c) => c.session === session);
}

/** The deployment's rules as a test calls the session object directly with them: every tool open. */
export const OPEN_RULES: LiveRules = {
  access: { disabled: [], source: "default" },
  approval: { ask: [], remember: "call", source: "default" },
  whitelists: {},
};
