// Every bad request gets a clear error in the one `{ error: { code, message } }` shape, never a
// 500, and changes nothing: each case states the request, the status and code expected, then
// checks that a session with activations, events and splices stored is exactly as it was.
import { runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_A, call, newSession, search, sessionObject } from "./helpers.ts";

let id: string;

/** Everything the session's object stores, except the last-used time that every read updates. */
async function stored(sessionId: string) {
  return runInDurableObject(sessionObject(sessionId), (_o: SessionDO, state) => {
    const sql = state.storage.sql;
    const rows = (q: string) => sql.exec(q).toArray();
    return {
      session: rows("SELECT id, data, created_at, ttl_ms FROM session"),
      activations: rows("SELECT seq, name FROM activations ORDER BY seq"),
      events: rows("SELECT seq, query, loaded FROM events ORDER BY seq"),
      splices: rows("SELECT prefix, at, data FROM splices ORDER BY seq"),
    };
  });
}

beforeAll(async () => {
  id = (await newSession()).id;
  await search(id, "select:mcp__shop__refund_order,mcp__shop__track_shipment");
  await search(id, "cancel order");
  await runInDurableObject(sessionObject(id), (o: SessionDO) =>
    o.addSplice({ at: 1, prefix: "p".repeat(64), hidden: [], reply: { sig: "s", upstream: { role: "assistant", content: "hi" } } }),
  );
});

type Case = [
  name: string,
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string>,
  status: number,
  code: string,
  message?: RegExp,
];

const user = [{ role: "user", content: "hi" }];
const chat = (extra: Record<string, unknown>) => ({ model: "gpt-4o", messages: user, ...extra });
const SES = "/v1/sessions/:id";
const TS = `${SES}/tool-search`;
const J = {};

const cases: Case[] = [
  // auth: 401 and nothing else revealed
  ["no Authorization header", "GET", SES, undefined, { authorization: "" }, 401, "unauthorized"],
  ["wrong key", "GET", SES, undefined, { authorization: "Bearer test-key-tenant-x-000000" }, 401, "unauthorized"],
  ["Basic instead of Bearer", "GET", SES, undefined, { authorization: "Basic dXNlcjpwYXNz" }, 401, "unauthorized"],
  ["Bearer with no key", "GET", SES, undefined, { authorization: "Bearer " }, 401, "unauthorized"],
  ["tool-search without a key", "POST", TS, { query: "select:mcp__shop__get_order" }, { authorization: "" }, 401, "unauthorized"],
  [
    "chat without a key",
    "POST",
    "/v1/chat/completions",
    chat({}),
    { authorization: "", "x-toolsearch-session": ":id" },
    401,
    "unauthorized",
  ],
  ["unknown /v1 route without a key", "GET", "/v1/nope", undefined, { authorization: "" }, 401, "unauthorized"],
  // routing
  ["unknown /v1 route", "GET", "/v1/nope", undefined, J, 404, "not_found"],
  ["unknown route", "GET", "/nope", undefined, J, 404, "not_found"],
  ["PUT on a session", "PUT", SES, { a: 1 }, J, 405, "method_not_allowed"],
  ["GET on chat completions", "GET", "/v1/chat/completions", undefined, J, 405, "method_not_allowed"],
  ["POST on a prompt", "POST", `${SES}/prompt`, {}, J, 405, "method_not_allowed"],
  ["PATCH on sessions", "PATCH", "/v1/sessions", {}, J, 405, "method_not_allowed"],
  // session ids
  ["malformed session id", "GET", "/v1/sessions/not-an-id", undefined, J, 404, "not_found"],
  ["unknown session id", "GET", `/v1/sessions/ses_${"A".repeat(32)}`, undefined, J, 404, "not_found"],
  ["tool-search on an unknown id", "POST", `/v1/sessions/ses_${"B".repeat(32)}/tool-search`, { query: "orders" }, J, 404, "not_found"],
  ["encoded dots as an id", "DELETE", "/v1/sessions/%2e%2e", undefined, J, 404, "not_found"],
  // content type, syntax, size
  ["tool-search without content type", "POST", TS, 'raw:{"query":"orders"}', { "content-type": "" }, 415, "unsupported_media_type"],
  ["tool-search as text/plain", "POST", TS, 'raw:{"query":"orders"}', { "content-type": "text/plain" }, 415, "unsupported_media_type"],
  ["malformed JSON", "POST", TS, "raw:{query:", J, 400, "bad_request", /not valid JSON/],
  ["a JSON array body", "POST", TS, "raw:[1,2]", J, 400, "bad_request", /must be a JSON object/],
  ["a JSON null body", "POST", TS, "raw:null", J, 400, "bad_request", /must be a JSON object/],
  ["tool-search body over 1 MiB", "POST", TS, { query: "x", pad: "y".repeat(1_100_000) }, J, 413, "payload_too_large"],
  [
    "chat body over 4 MiB",
    "POST",
    "/v1/chat/completions",
    chat({ pad: "y".repeat(4_300_000) }),
    { "x-toolsearch-session": ":id" },
    413,
    "payload_too_large",
  ],
  ["malformed JSON on create", "POST", "/v1/sessions", 'raw:{"model"', J, 400, "bad_request"],
  // session creation
  ["no model", "POST", "/v1/sessions", {}, J, 400, "bad_request", /^model: required$/],
  ["model not a string", "POST", "/v1/sessions", { model: 42 }, J, 400, "bad_request", /^model: must be a string$/],
  ["model too long", "POST", "/v1/sessions", { model: "m".repeat(201) }, J, 400, "bad_request", /^model: at most 200 characters$/],
  ["blank model", "POST", "/v1/sessions", { model: "   " }, J, 400, "bad_request", /^model: must not be blank$/],
  ["unknown field", "POST", "/v1/sessions", { model: "gpt-4o", colour: "red" }, J, 400, "bad_request", /^unknown field "colour"$/],
  [
    "profile with a space",
    "POST",
    "/v1/sessions",
    { model: "gpt-4o", profile: "a b" },
    J,
    400,
    "bad_request",
    /^profile: must be a profile name/,
  ],
  ["unknown profile", "POST", "/v1/sessions", { model: "gpt-4o", profile: "nobody" }, J, 400, "bad_request", /unknown profile "nobody"/],
  [
    "bad deferral",
    "POST",
    "/v1/sessions",
    { model: "gpt-4o", deferral: "maybe" },
    J,
    400,
    "bad_request",
    /^deferral: must be "auto", "on" or "off"$/,
  ],
  [
    "contextWindow too small",
    "POST",
    "/v1/sessions",
    { model: "gpt-4o", contextWindow: 10 },
    J,
    400,
    "bad_request",
    /^contextWindow: must be an integer from 1000 to 100000000$/,
  ],
  [
    "contextWindow a string",
    "POST",
    "/v1/sessions",
    { model: "gpt-4o", contextWindow: "big" },
    J,
    400,
    "bad_request",
    /^contextWindow: must be an integer/,
  ],
  [
    "bad activation",
    "POST",
    "/v1/sessions",
    { model: "gpt-4o", activation: "both" },
    J,
    400,
    "bad_request",
    /^activation: must be "inject" or "proxy"$/,
  ],
  [
    "bad listing",
    "POST",
    "/v1/sessions",
    { model: "gpt-4o", listing: "short" },
    J,
    400,
    "bad_request",
    /^listing: must be "auto", "names", "grouped", "servers" or "none"$/,
  ],
  // tool search
  ["no query", "POST", TS, {}, J, 400, "bad_request", /^query: required$/],
  ["query a number", "POST", TS, { query: 42 }, J, 400, "bad_request", /^query: must be a string$/],
  ["blank query", "POST", TS, { query: "   " }, J, 400, "bad_request", /^query: must not be empty/],
  ["query over 1,000 characters", "POST", TS, { query: "x".repeat(1001) }, J, 400, "bad_request", /^query: at most 1000 characters$/],
  ["limit 0", "POST", TS, { query: "orders", limit: 0 }, J, 400, "bad_request", /^limit: must be an integer from 1 to 20$/],
  ["limit 21", "POST", TS, { query: "orders", limit: 21 }, J, 400, "bad_request", /^limit: must be an integer from 1 to 20$/],
  ["limit 2.5", "POST", TS, { query: "orders", limit: 2.5 }, J, 400, "bad_request", /^limit: must be an integer from 1 to 20$/],
  ["limit a string", "POST", TS, { query: "orders", limit: "5" }, J, 400, "bad_request", /^limit: must be an integer from 1 to 20$/],
  ["unknown search field", "POST", TS, { query: "orders", k: 3 }, J, 400, "bad_request", /^unknown field "k"$/],
  [
    "select: with 21 names",
    "POST",
    TS,
    { query: `select:${Array.from({ length: 21 }, (_, i) => `t${i}`).join(",")}` },
    J,
    400,
    "bad_request",
    /takes at most 20 names, got 21$/,
  ],
  ["select: a bad name", "POST", TS, { query: "select:mcp__shop__get_order,a b!" }, J, 400, "bad_request", /"a b!" is not a tool name/],
  ["select: with no names", "POST", TS, { query: "select: , ," }, J, 400, "bad_request", /select: needs at least one tool name/],
  [
    "prompt in an unknown format",
    "GET",
    `${SES}/prompt?format=gemini`,
    undefined,
    J,
    400,
    "bad_request",
    /^format: must be "openai" or "anthropic"/,
  ],
  // chat completions (with the session: it must stay untouched)
  [
    "chat without messages",
    "POST",
    "/v1/chat/completions",
    { model: "gpt-4o" },
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^messages: required$/,
  ],
  [
    "chat with no messages",
    "POST",
    "/v1/chat/completions",
    chat({ messages: [] }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^messages: /,
  ],
  [
    "chat with 2,001 messages",
    "POST",
    "/v1/chat/completions",
    chat({ messages: Array(2001).fill(user[0]) }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^messages: /,
  ],
  [
    "a message with an unknown role",
    "POST",
    "/v1/chat/completions",
    chat({ messages: [{ role: "robot", content: "x" }] }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^messages\.0\.role: /,
  ],
  [
    "a tool message without tool_call_id",
    "POST",
    "/v1/chat/completions",
    chat({ messages: [{ role: "tool", content: "x" }] }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^messages\.0\.tool_call_id: /,
  ],
  [
    "2,001 client tools",
    "POST",
    "/v1/chat/completions",
    chat({ tools: Array.from({ length: 2001 }, (_, i) => ({ type: "function", function: { name: `t${i}` } })) }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^tools: Array must contain at most 2000/,
  ],
  [
    "a client tool declared twice",
    "POST",
    "/v1/chat/completions",
    chat({
      tools: [
        { type: "function", function: { name: "t1" } },
        { type: "function", function: { name: "t1" } },
      ],
    }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^tools\.1\.function\.name: "t1" is declared twice/,
  ],
  [
    "prompt_cache_key as a number",
    "POST",
    "/v1/chat/completions",
    chat({ prompt_cache_key: 7 }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^prompt_cache_key: must be a string/,
  ],
  [
    "a bad name in x-toolsearch-core",
    "POST",
    "/v1/chat/completions",
    chat({}),
    { "x-toolsearch-session": ":id", "x-toolsearch-core": "ok_name, bad name" },
    400,
    "bad_request",
    /^x-toolsearch-core: "bad name" is not a tool name/,
  ],
  [
    "a client tool name with a space",
    "POST",
    "/v1/chat/completions",
    chat({ tools: [{ type: "function", function: { name: "bad name" } }] }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^tools\.0\.function\.name: must be 1-64/,
  ],
  [
    "a client tool named toolSearch",
    "POST",
    "/v1/chat/completions",
    chat({ tools: [{ type: "function", function: { name: "toolSearch" } }] }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /is reserved by toolsearch/,
  ],
  ["n = 2", "POST", "/v1/chat/completions", chat({ n: 2 }), { "x-toolsearch-session": ":id" }, 400, "bad_request", /^n: only n = 1/],
  [
    "an empty model",
    "POST",
    "/v1/chat/completions",
    chat({ model: "" }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^model: /,
  ],
  [
    "stream as a string",
    "POST",
    "/v1/chat/completions",
    chat({ stream: "yes" }),
    { "x-toolsearch-session": ":id" },
    400,
    "bad_request",
    /^stream: /,
  ],
  [
    "max hops 11",
    "POST",
    "/v1/chat/completions",
    chat({}),
    { "x-toolsearch-session": ":id", "x-toolsearch-max-hops": "11" },
    400,
    "bad_request",
    /x-toolsearch-max-hops: must be an integer from 0 to 10/,
  ],
  [
    "a bad activation header",
    "POST",
    "/v1/chat/completions",
    chat({}),
    { "x-toolsearch-activation": "both" },
    400,
    "bad_request",
    /x-toolsearch-activation: must be "inject" or "proxy"/,
  ],
  [
    "a bad listing header",
    "POST",
    "/v1/chat/completions",
    chat({}),
    { "x-toolsearch-listing": "all" },
    400,
    "bad_request",
    /^x-toolsearch-listing: must be "auto", "names", "grouped", "servers" or "none"$/,
  ],
  [
    "an unknown session header",
    "POST",
    "/v1/chat/completions",
    chat({}),
    { "x-toolsearch-session": `ses_${"C".repeat(32)}` },
    404,
    "not_found",
  ],
];

describe("bad input", () => {
  it(`has at least 40 cases (${cases.length}) against a session with something to lose`, async () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const s = await stored(id);
    expect(s.session).toHaveLength(1);
    expect(s.activations.slice(0, 2).map((a) => a.name)).toEqual(["mcp__shop__refund_order", "mcp__shop__track_shipment"]);
    expect(s.activations.length).toBeGreaterThanOrEqual(3); // and what "cancel order" loaded
    expect(s.events).toHaveLength(2);
    expect(s.splices).toHaveLength(1);
  });

  it.each(cases)("%s: %s %s -> %#", async (_name, method, path, body, headers, status, code, message) => {
    const before = await stored(id);
    const h = Object.fromEntries(Object.entries({ ...AUTH_A, ...headers }).map(([k, v]) => [k, v.replace(":id", id)]));
    const raw = typeof body === "string" && body.startsWith("raw:");
    if (raw && !("content-type" in headers)) h["content-type"] = "application/json";
    const r = await call(method, path.replace(":id", id), raw ? (body as string).slice(4) : body, h);
    expect(r.status).toBe(status);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(r.body)).toEqual(["error"]);
    expect(r.body.error.code).toBe(code);
    expect(typeof r.body.error.message).toBe("string");
    if (message) expect(r.body.error.message).toMatch(message);
    if (status === 401) {
      expect(r.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(r.headers.get("x-catalog")).toBeNull();
      expect(r.body.error.message).not.toContain(id);
    }
    expect(await stored(id)).toEqual(before);
  });
});
