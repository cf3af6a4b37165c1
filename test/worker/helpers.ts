// Calls into the real Worker inside workerd. `call` goes through the deployed entry (exports);
// `callWith` runs the same fetch handler with vars overridden (another pinned catalog), still
// with the real ASSETS and Durable Object bindings.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import worker from "../../worker/index.ts";

export const BASE = "https://toolsearch.test";

export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export function request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return new Request(`${BASE}${path}`, init);
}

export async function call(method: string, path: string, body?: unknown, headers?: Record<string, string>) {
  const res = await exports.default.fetch(request(method, path, body, headers));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json, text };
}

export async function callWith(vars: Record<string, unknown>, method: string, path: string, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await worker.fetch(request(method, path, body), { ...env, ...vars } as Env, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
}

export async function newSession(body: Record<string, unknown> = { model: "gpt-4o", deferral: "on" }) {
  const r = await call("POST", "/v1/sessions", body);
  if (r.status !== 201) throw new Error(`session create failed: ${r.status} ${r.text}`);
  return r.body as Json;
}

export const search = (id: string, query: unknown, limit?: number) => call("POST", `/v1/sessions/${id}/tool-search`, limit === undefined ? { query } : { query, limit });
export const promptOf = async (id: string, format = "openai") => (await call("GET", `/v1/sessions/${id}/prompt?format=${format}`)).body as Json;
