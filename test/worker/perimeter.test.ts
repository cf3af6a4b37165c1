// The perimeter (worker/perimeter.ts), tried as a DNS-rebinding page would: its requests carry
// the Host and Origin of its own domain, re-pointed to the Worker, and a valid key. Every route
// refuses a Host the deployment does not serve (ALLOWED_HOSTS, plus loopback names), in the
// route's own error shape and before the key is looked at; /v1 and /mcp refuse a foreign Origin.
// The Worker's own origin (the page at /) and loopback names keep working.
import { createExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "./main.ts";
import { AUTH_A, BASE, EDGE, modelLane, type Json } from "./helpers.ts";

const REBOUND = "https://rebound.example";

async function send(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const headers: Record<string, string> = { ...AUTH_A, ...init.headers };
  if (init.body !== undefined) headers["content-type"] = "application/json";
  const res = await exports.default.fetch(
    new Request(url, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }),
  );
  const text = await res.text();
  return { status: res.status, body: (text.startsWith("{") ? JSON.parse(text) : text) as Json };
}

describe("Host: only the deployment's hostnames and loopback names are served", () => {
  it("a rebound Host is refused on every route, in that route's error shape", async () => {
    const create = await send(`${REBOUND}/v1/sessions`, { method: "POST", body: { model: "gpt-4o" }, headers: { origin: REBOUND } });
    expect(create).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden", message: expect.stringMatching(/Host rebound\.example/) } },
    });
    // no Origin at all (curl through a rebound name): the Host alone is refused
    expect((await send(`${REBOUND}/v1/catalog`)).status).toBe(403);
    expect((await send(`${REBOUND}/healthz`, { headers: { authorization: "" } })).status).toBe(403);
    expect((await send(`${REBOUND}/`, { headers: { authorization: "" } })).status).toBe(403);
    const mcp = await send(`${REBOUND}/mcp`, {
      method: "POST",
      headers: { origin: REBOUND, accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
    });
    expect(mcp.status).toBe(403);
    expect(mcp.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { message: expect.stringMatching(/Host rebound\.example/) } });
    const messages = await send(`${REBOUND}/v1/messages`, { method: "POST", body: { model: "m", max_tokens: 1, messages: [] } });
    expect(messages.body).toMatchObject({ type: "error", error: { type: "permission_error" } });
    // the chat endpoint (it spends OPENAI_API_KEY) is refused before the upstream is asked: the
    // scripted model's lane records nothing for the rebound Host, and the same request on the
    // deployment's own Host does reach it
    const lane = modelLane();
    const chat = async (base: string) => {
      const req = new Request(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { ...AUTH_A, "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
      });
      return (await worker.fetch(req, { ...env, OPENAI_BASE_URL: lane, OPENAI_API_KEY: "test" } as Env, createExecutionContext())).status;
    };
    const asked = async () => ((await (await fetch(`${lane.replace(/\/v1$/, "")}/_control/requests`)).json()) as Json[]).length;
    expect(await chat(REBOUND)).toBe(403);
    expect(await asked()).toBe(0);
    expect(await chat(BASE)).toBe(200);
    expect(await asked()).toBe(1);
  });

  it("a rebound Host is refused before the key is looked at: no key and a wrong key get the same 403, not 401", async () => {
    for (const authorization of ["", "Bearer not-a-key-of-this-deployment"]) {
      const r = await send(`${REBOUND}/v1/sessions`, { method: "POST", body: { model: "gpt-4o" }, headers: { authorization } });
      expect([authorization, r.status, r.body.error?.code]).toEqual([authorization, 403, "forbidden"]);
    }
  });

  it("loopback names and the configured hostname are served", async () => {
    for (const base of [BASE, "http://127.0.0.1:8787", "http://localhost:3000", "http://[::1]:8787", "https://TOOLSEARCH.test"]) {
      expect([base, (await send(`${base}/healthz`, { headers: { authorization: "" } })).status]).toEqual([base, 200]);
    }
    // a name that only starts like a loopback or an allowed one is another host
    for (const base of ["http://localhost.evil.example", "https://toolsearch.test.evil.example", "http://127.0.0.1.nip.io"]) {
      expect([base, (await send(`${base}/healthz`, { headers: { authorization: "" } })).status]).toEqual([base, 403]);
    }
  });
});

describe("Origin on /v1: a page of another site is refused before the key is checked", () => {
  it("a foreign Origin gets 403 even with a valid key; the Worker's own and loopback origins pass", async () => {
    const evil = await send(`${BASE}/v1/sessions`, {
      method: "POST",
      body: { model: "gpt-4o" },
      headers: { origin: "https://evil.example" },
    });
    expect(evil).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden", message: expect.stringMatching(/Origin https:\/\/evil\.example/) } },
    });
    // before the key: without one, or with a wrong one, the answer is the same 403 (a 401 would come from the key check)
    for (const authorization of ["", "Bearer not-a-key-of-this-deployment"]) {
      const r = await send(`${BASE}/v1/catalog`, { headers: { origin: "https://evil.example", authorization } });
      expect([authorization, r.status, r.body.error?.code]).toEqual([authorization, 403, "forbidden"]);
    }
    const nullOrigin = await send(`${BASE}/v1/catalog`, { headers: { origin: "null" } });
    expect(nullOrigin.status).toBe(403);
    // the page at / calls /v1 from its own origin
    for (const origin of [BASE, "http://localhost:5173"]) {
      const ok = await send(`${BASE}/v1/sessions`, { method: "POST", body: { model: "gpt-4o" }, headers: { origin } });
      expect([origin, ok.status]).toEqual([origin, 201]);
    }
  });
});

describe("request bodies are bounded in bytes while they are read", () => {
  it("a chunked 400 MiB body gets 413 after at most the limit and a few chunks were read (M5)", async () => {
    const CHUNK = 64 * 1024;
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (pulled >= 400 * 1024 * 1024) return c.close();
        pulled += CHUNK;
        c.enqueue(new Uint8Array(CHUNK).fill(0x20));
      },
    });
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/sessions`, { method: "POST", headers: { ...AUTH_A, "content-type": "application/json" }, body }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as Json).error.code).toBe("payload_too_large");
    // the limit is 1 MiB: what was pulled is that and the chunks in flight, never the 400 MiB
    expect(pulled).toBeLessThanOrEqual(1024 * 1024 + 8 * CHUNK);
  });

  /** a body sent chunked (no content-length), in `size`-byte pieces; `pulled` counts what was read */
  function chunked(bytes: Uint8Array, size: number) {
    const read = { pulled: 0 };
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (read.pulled >= bytes.length) return c.close();
        c.enqueue(bytes.slice(read.pulled, read.pulled + size));
        read.pulled += size;
      },
    });
    return { body, read };
  }
  const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
    exports.default.fetch(
      new Request(`${BASE}${path}`, { method: "POST", headers: { ...AUTH_A, "content-type": "application/json", ...headers }, body }),
    );

  it("a chunked chat body is read whole in odd-sized pieces that split UTF-8 characters, then checked (issue 38)", async () => {
    // 300 KB of "é" (2 bytes each) in 1,001-byte chunks: every other chunk ends inside a character
    const text = JSON.stringify({ model: "gpt-4o", metadata: { pad: "é".repeat(150_000) }, messages: [] });
    const { body, read } = chunked(new TextEncoder().encode(text), 1001);
    const res = await post("/v1/chat/completions", body);
    // the field after the padding was reached: the body was decoded whole and parsed
    expect([res.status, ((await res.json()) as Json).error.message]).toEqual([400, "messages: Array must contain at least 1 element(s)"]);
    expect(read.pulled).toBeGreaterThanOrEqual(text.length);
  });

  it("a chunked chat body past its 4 MiB is cancelled at the limit; a declared length past it is refused unread (issue 38)", async () => {
    const big = new Uint8Array(64 * 1024 * 1024).fill(0x20);
    const { body, read } = chunked(big, 64 * 1024);
    const res = await post("/v1/chat/completions", body);
    expect(res.status).toBe(413);
    expect(((await res.json()) as Json).error.message).toMatch(/the limit is 4194304/);
    expect(read.pulled).toBeLessThanOrEqual(4 * 1024 * 1024 + 8 * 64 * 1024);
    for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/messages"]) {
      const declared = chunked(big, 64 * 1024);
      const refused = await post(path, declared.body, { "content-length": String(5 * 1024 * 1024) });
      expect([path, refused.status]).toEqual([path, 413]);
      expect(declared.read.pulled, path).toBeLessThanOrEqual(8 * 64 * 1024);
    }
  });

  it("a body with a declared length is read as declared: a valid one is parsed, a truncated one is a 400 (issue 38)", async () => {
    const text = JSON.stringify({ model: "gpt-4o", metadata: { pad: "字".repeat(1000) }, messages: [] });
    const bytes = new TextEncoder().encode(text);
    const ok = await post("/v1/chat/completions", bytes, { "content-length": String(bytes.length) });
    expect([ok.status, ((await ok.json()) as Json).error.message]).toEqual([400, "messages: Array must contain at least 1 element(s)"]);
    const cut = await post("/v1/chat/completions", bytes.slice(0, 2000), { "content-length": "2000" });
    expect([cut.status, ((await cut.json()) as Json).error.message]).toEqual([400, expect.stringMatching(/^body is not valid JSON/)]);
  });

  it("JSON nested 100,000 deep is a 400 on chat, responses and messages too (issue 38)", async () => {
    const deep = `{"model":"gpt-4o","metadata":${"[".repeat(100_000)}${"]".repeat(100_000)},"messages":[]}`;
    for (const path of ["/v1/chat/completions", "/v1/responses", "/v1/messages"]) {
      const res = await post(path, deep, { "content-length": String(deep.length) });
      expect([path, res.status, JSON.stringify(await res.json())]).toEqual([
        path,
        400,
        expect.stringContaining("body nests deeper than 128 levels"),
      ]);
    }
  });

  it("/mcp counts its 1 MiB in bytes: 400,000 CJK characters (1.2 MB) get 413 (L7)", async () => {
    const text = "字".repeat(400_000);
    const res = await send(`${BASE}/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { text } } },
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", error: { message: expect.stringMatching(/the limit is 1048576/) } });
  });

  it("JSON nested 100,000 deep is a clear 400, on /v1 and on /mcp (L6)", async () => {
    const deep = `{"model":"gpt-4o","metadata":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const rest = await exports.default.fetch(
      new Request(`${BASE}/v1/sessions`, { method: "POST", headers: { ...AUTH_A, "content-type": "application/json" }, body: deep }),
    );
    expect([rest.status, ((await rest.json()) as Json).error.message]).toEqual([400, "body nests deeper than 128 levels"]);
    const rpc = await exports.default.fetch(
      new Request(`${BASE}/mcp`, {
        method: "POST",
        headers: { ...AUTH_A, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":${"[".repeat(100_000)}${"]".repeat(100_000)}}}`,
      }),
    );
    expect(rpc.status).toBe(400);
    expect(((await rpc.json()) as Json).error).toMatchObject({ code: -32600, message: expect.stringMatching(/nests deeper than 128/) });
  });
});

describe("secrets stay in: upstream model errors (L2)", () => {
  const upstream = modelLane();
  const SECRET = "sk-operator-secret-0123456789";
  const fail = (faults: unknown[]) =>
    fetch(`${upstream.replace(/\/v1$/, "")}/_control/fail`, { method: "POST", body: JSON.stringify(faults) });
  const chat = async () => {
    const req = new Request(`${BASE}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...AUTH_A },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }),
    });
    const vars = { OPENAI_BASE_URL: upstream, OPENAI_API_KEY: SECRET, UPSTREAM_MAX_RETRIES: "0" };
    const res = await worker.fetch(req, { ...env, ...vars } as Env, createExecutionContext());
    return { status: res.status, auth: res.headers.get("www-authenticate"), text: await res.text() };
  };

  it("an upstream 401 that repeats the key is a 502 naming the setting, without the key or a WWW-Authenticate of ours", async () => {
    await fail([{ status: 401, body: { error: { message: `Incorrect API key provided: ${SECRET}`, type: "invalid_request_error" } } }]);
    const r = await chat();
    expect([r.status, r.auth]).toEqual([502, null]);
    expect(r.text).toMatch(/refused this deployment's key \(HTTP 401\): check OPENAI_API_KEY/);
    expect(r.text).not.toContain(SECRET);
  });

  it("an upstream 400 that quotes the key passes with the key redacted", async () => {
    await fail([{ status: 400, body: { error: { message: `bad request for key ${SECRET}`, type: "invalid_request_error" } } }]);
    const r = await chat();
    expect(r.status).toBe(400);
    expect(r.text).toContain("bad request for key [redacted]");
    expect(r.text).not.toContain(SECRET);
  });
});

describe("upstream model streams are bounded (L3)", () => {
  it("an answer past 16 MiB stops being read: a 502 saying so", async () => {
    const upstream = modelLane();
    const huge = "x".repeat(20 * 1024 * 1024);
    await fetch(`${upstream.replace(/\/v1$/, "")}/_control/fail`, {
      method: "POST",
      body: JSON.stringify([{ status: 200, headers: { "content-type": "text/event-stream" }, body: huge }]),
    });
    const req = new Request(`${BASE}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...AUTH_A },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }),
    });
    const vars = { OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_MAX_RETRIES: "0" };
    const res = await worker.fetch(req, { ...env, ...vars } as Env, createExecutionContext());
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(/passed 16777216 bytes; reading stopped/);
  });
});

describe("open routes tell a caller without a key nothing more (L8, L9)", () => {
  it("/healthz without a key names no server; with one it does", async () => {
    const vars: Record<string, unknown> = {
      ...EDGE,
      SERVERS: JSON.stringify({ "secret-internal-server": { url: "http://127.0.0.1:9/mcp" } }),
    };
    const get = async (headers: Record<string, string>) =>
      (await worker.fetch(new Request(`${BASE}/healthz`, { headers }), { ...env, ...vars } as Env, createExecutionContext())).text();
    const anonymous = await get({});
    expect(anonymous).not.toContain("secret-internal-server");
    expect(anonymous).toMatch(/1 SERVERS entries name no server/);
    expect(await get(AUTH_A)).toContain("secret-internal-server");
  });

  it("/page/constructor (and other prototype names) is a 404, not a lookup", async () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      const r = await send(`${BASE}/page/${name}`, { headers: { authorization: "" } });
      expect([name, r.status]).toEqual([name, 404]);
    }
  });
});
