// Stored responses inside workerd (real Durable Objects, the scripted upstream in Node): a response
// is stored in its session's object unless store is false; GET and DELETE answer within the
// caller's tenant, and another tenant's id is the same 404 as an unknown one (as a
// previous_response_id, the same 400). A refused request stores nothing: no session, no upstream call.
import { beforeEach, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { keyedSessionId } from "../../worker/session/create.ts";
import { AUTH_B, call, callWith, modelLane, type Json } from "./helpers.ts";

const upstream = modelLane();
const vars = { OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_TIMEOUT_MS: "20000" };
const control = (what: string) =>
  fetch(`${upstream.replace(/\/v1$/, "")}/_control/${what}`, {
    method: what === "requests" ? "GET" : "POST",
    body: what === "requests" ? undefined : "{}",
  }).then((r) => r.json() as Promise<Json[]>);
const create = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  callWith(vars, "POST", "/v1/responses", { model: "gpt-4o", ...body }, headers);

beforeEach(() => control("reset"));

describe("stored responses", () => {
  it("GET and DELETE answer within the tenant; another tenant's id is the same 404 as an unknown one", async () => {
    const made = await create({ input: "hello", instructions: "Tenancy." });
    expect(made.status).toBe(200);
    const id: string = made.body.id;
    expect((await call("GET", `/v1/responses/${id}`)).body).toEqual(made.body);
    const foreign = await call("GET", `/v1/responses/${id}`, undefined, AUTH_B);
    const unknown = await call("GET", `/v1/responses/${id.slice(0, -4)}AAAA`);
    expect([foreign.status, unknown.status]).toEqual([404, 404]);
    expect(foreign.body.error.code).toBe(unknown.body.error.code);
    expect((await call("DELETE", `/v1/responses/${id}`, undefined, AUTH_B)).status).toBe(404);
    // as a previous_response_id in another tenant: the same refusal as an unknown id, naming the field
    const borrowed = await create({ input: "again", previous_response_id: id }, AUTH_B);
    expect(borrowed.status).toBe(400);
    expect(borrowed.body.error).toMatchObject({ param: "previous_response_id", type: "invalid_request_error" });
    expect(await call("DELETE", `/v1/responses/${id}`)).toMatchObject({ status: 200, body: { id, object: "response", deleted: true } });
    expect((await call("GET", `/v1/responses/${id}`)).status).toBe(404);
    const after = await create({ input: "again", previous_response_id: id });
    expect([after.status, after.body.error.param]).toEqual([400, "previous_response_id"]);
  });

  it("the answer and every response event echo the request's tools as sent; the stored response keeps none (issue 38)", async () => {
    const tools = [
      { type: "function", name: "lookup", description: 'a "tools" marker: \u0000tools', parameters: { type: "object", properties: {} } },
      { type: "function", name: "other", description: null, parameters: null, strict: true, extra: { tools: [1] } },
    ];
    // a `tools` member elsewhere in what the response echoes stays as it was
    const text = { format: { type: "text" }, tools: [] };
    const made = await create({ input: "hello", tools, text });
    expect(made.status).toBe(200);
    expect([made.body.tools, made.body.text]).toEqual([tools, text]);
    expect((await call("GET", `/v1/responses/${made.body.id}`)).body.tools).toEqual([]);
    const streamed = await create({ input: "hello", tools, text, stream: true });
    const events = streamed.text
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map((l) => JSON.parse(l.slice(6)) as Json)
      .filter((e) => e.response);
    expect(events.map((e) => e.type)).toEqual(["response.created", "response.in_progress", "response.completed"]);
    for (const e of events) expect([e.response.tools, e.response.text]).toEqual([tools, text]);
    // the echo is kept with the tool set: other tools echo themselves, and the first ones again theirs
    const changed = [{ ...tools[0]!, description: "changed" }, tools[1]!];
    expect((await create({ input: "hello", tools: changed })).body.tools).toEqual(changed);
    expect((await create({ input: "hello", tools, text })).body.tools).toEqual(tools);
  });

  it("store: false answers but keeps nothing", async () => {
    const made = await create({ input: "hello", store: false });
    expect([made.status, made.body.store]).toEqual([200, false]);
    expect((await call("GET", `/v1/responses/${made.body.id}`)).status).toBe(404);
  });

  it("a refused request creates no session and calls no upstream", async () => {
    const key = "refused-conversation-1";
    const refused = await create({
      prompt_cache_key: key,
      input: [
        { role: "user", content: "hello" },
        { type: "function_call_output", call_id: "call_never_made", output: "42" },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ param: "input.1.call_id", code: "bad_request", type: "invalid_request_error" });
    const id = await keyedSessionId({ tenant: "tenant-a", env }, `prompt_cache_key\u0000${key}`);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect(await control("requests")).toEqual([]);
    // the same conversation, well formed, makes the session
    const ok = await create({ prompt_cache_key: key, input: "hello" });
    expect(ok.headers.get("x-toolsearch-session")).toBe(id);
  });
});
