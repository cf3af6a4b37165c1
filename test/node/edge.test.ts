// Edge execution end to end in `wrangler dev` (workerd as deployed: no vitest patching of code
// generation): the Worker calls real MCP servers over HTTP (server-everything, and the stateful
// fixture with a secret bearer token), a full agent conversation with `execution: edge` through the
// real `openai` client (chat completions, and /v1/responses) and through the AI SDK (base URL and one static header) where the client
// declares no catalog tool, upstream MCP state kept across
// turns and across a restart of the Worker and its Durable Objects, audit rows in the session and in
// D1, and the secret found nowhere: responses, audit rows, wrangler's log, the stored state.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_TOKEN, serversVar, startEdgeServers, type EdgeServers } from "../fixtures/edge-servers.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { expectAppendOnly, type Json, type Msg } from "./agent-rig.ts";
import { ROOT, tempDir } from "./helpers.ts";
import { restCall } from "../fixtures/rest-call.ts";

const KEY = "edge-test-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };

let servers: EdgeServers;
let llm: ScriptedLLM;
let dev: DevServer;
let state: string;
let envFile: string;
const logs: string[] = [];
const responses: string[] = [];

async function startWorker(): Promise<DevServer> {
  return startWranglerDev({
    env: "test",
    persistTo: state,
    envFile,
    vars: {
      CATALOG: "edge@1.0.0.json",
      SERVERS: serversVar(servers),
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: "test-key",
      API_KEYS: JSON.stringify({ [KEY]: "edge-tests" }),
    },
  });
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, AUTH, method, body, (t) => responses.push(t));
}

const stats = async () => (await fetch(`${servers.fixtureBase}/_control/stats`)).json() as Promise<Json>;

beforeAll(async () => {
  [servers, llm, state] = await Promise.all([startEdgeServers(), startScriptedLLM(), tempDir("toolsearch-edge-")]);
  envFile = join(state, ".env");
  await writeFile(envFile, `EDGE_TEST_TOKEN=${EDGE_TOKEN}\n`);
  dev = await startWorker();
}, 120_000);

afterAll(async () => {
  if (dev) logs.push(dev.log());
  await dev?.stop();
  await llm?.close();
  await servers?.stop();
});

describe("edge calls in wrangler dev", () => {
  it("runs tools on real MCP servers: text, structured content (a tool with an outputSchema), legacy SSE, a secret header", async () => {
    const s = (await api("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body;
    const echo = await api("POST", `/v1/sessions/${s.id}/tools/mcp__everything__echo/call`, { arguments: { message: "from the edge" } });
    expect(echo).toEqual({ status: 200, body: { content: [{ type: "text", text: "Echo: from the edge" }] } });
    const structured = await api("POST", `/v1/sessions/${s.id}/tools/mcp__everything__get-structured-content/call`, {
      arguments: { location: "Chicago" },
    });
    expect(structured.body.structuredContent).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
    const legacy = await api("POST", `/v1/sessions/${s.id}/tools/mcp__legacy__echo/call`, { arguments: { message: "over SSE" } });
    expect(legacy.body).toEqual({ content: [{ type: "text", text: "Echo: over SSE" }] });
    const who = await api("POST", `/v1/sessions/${s.id}/tools/mcp__fixture__whoami/call`, {});
    expect(who.body.content[0].text).toBe("authorization: Bearer [redacted]");
    expect((await stats()).calls.find((c: Json) => c.tool === "whoami").authorization).toBe(`Bearer ${EDGE_TOKEN}`);
    const bad = await api("POST", `/v1/sessions/${s.id}/tools/mcp__fixture__counter_add/call`, { arguments: { n: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^invalid arguments for mcp__fixture__counter_add: arguments\/n/);
  });
});

describe("the agent endpoint with execution: edge", () => {
  const client = () => new OpenAI({ baseURL: `${dev.url}/v1`, apiKey: KEY, maxRetries: 0 });
  const history: Msg[] = [];
  let session = "";

  async function turn(text: string, headers: Record<string, string> = {}) {
    history.push({ role: "user", content: text });
    const { data, response } = await client()
      .chat.completions.create(
        { model: "gpt-4o", messages: history },
        { headers: { ...(session ? { "x-toolsearch-session": session } : {}), ...headers } },
      )
      .withResponse();
    responses.push(JSON.stringify(data));
    session ||= response.headers.get("x-toolsearch-session")!;
    const message = data.choices[0]!.message;
    history.push({ role: "assistant", content: message.content });
    return { message, hops: Number(response.headers.get("x-toolsearch-hops")) };
  }

  it("x-toolsearch-execution: edge makes a session whose catalog calls the Worker runs", async () => {
    const { data, response } = await client()
      .chat.completions.create(
        { model: "gpt-4o", messages: [{ role: "user", content: "echo a message" }] },
        { headers: { "x-toolsearch-execution": "edge" } },
      )
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Done with mcp__everything__echo: Echo: example");
    const id = response.headers.get("x-toolsearch-session")!;
    expect((await api("GET", `/v1/sessions/${id}`)).body).toMatchObject({ mode: "full", execution: "edge" });
    const clash = await fetch(`${dev.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...AUTH, "x-toolsearch-session": id, "x-toolsearch-execution": "client" },
      body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(clash.status).toBe(409);
  });

  it("on /v1/responses too: x-toolsearch-execution: edge, and the Worker runs the catalog call", async () => {
    const { data, response } = await client()
      .responses.create({ model: "gpt-4o", input: "echo a message (responses)" }, { headers: { "x-toolsearch-execution": "edge" } })
      .withResponse();
    expect(data.output_text).toBe("Done with mcp__everything__echo: Echo: example");
    expect(data.output.map((o) => o.type)).toEqual(["message"]);
    const id = response.headers.get("x-toolsearch-session")!;
    expect((await api("GET", `/v1/sessions/${id}`)).body).toMatchObject({ execution: "edge" });
  });

  it("plays a conversation where the Worker runs every catalog call and the client sees only answers", async () => {
    llm.reset();
    const before = (await stats()).initializes;
    session = (await api("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", execution: "edge" })).body.id;
    const first = await turn("add one to the counter");
    expect(first.message.tool_calls ?? []).toEqual([]);
    expect(first.message.content).toBe("Done with mcp__fixture__counter_add: total: 1");
    expect(first.hops).toBe(3); // toolSearch round, edge round, answer
    const second = await turn("add one to the counter again");
    expect(second.message.content).toBe("Done with mcp__fixture__counter_add: total: 2");
    expect(second.hops).toBe(2); // the tool is loaded now: edge round, answer
    expectAppendOnly(llm.requests);
    const hidden = llm.requests[2]!.body.messages.at(-1)!;
    expect(hidden).toMatchObject({ role: "tool", content: "total: 1" });
    expect((await stats()).initializes).toBe(before + 1);
  });

  it("keeps the server's state across a restart of the Worker and its Durable Objects", async () => {
    logs.push(dev.log());
    await dev.stop();
    dev = await startWorker();
    const third = await turn("add one to the counter once more");
    expect(third.message.content).toBe("Done with mcp__fixture__counter_add: total: 3");
    const s = await stats();
    expect(new Set(s.calls.filter((c: Json) => c.tool === "counter_add").map((c: Json) => c.session)).size).toBe(1);
  }, 120_000);

  it("audits every search, activation and call, in the session and in D1", async () => {
    const own = (await api("GET", `/v1/sessions/${session}/audit`)).body.events as Json[];
    expect(own.filter((e) => e.type === "call").map((e) => [e.tool, e.outcome, e.via])).toEqual(
      Array(3).fill(["mcp__fixture__counter_add", "ok", "chat"]),
    );
    expect(own.filter((e) => e.type === "search")).toHaveLength(1);
    expect(own.filter((e) => e.type === "activation").map((e) => e.tool)).toEqual(["mcp__fixture__counter_add"]);
    let d1: Json[] = [];
    for (let i = 0; i < 50 && d1.length < own.length; i++) {
      d1 = (await api("GET", `/v1/audit?session=${session}&limit=500`)).body.events;
      if (d1.length < own.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(d1.map((e) => e.id)).toEqual(own.map((e) => e.id));
  });

  it("the AI SDK, base URL and one static header: catalog tools it never declared run at the edge, one session", async () => {
    llm.reset();
    const before = (await stats()).initializes;
    // no custom fetch, no session header: execution comes from a header set once on the provider
    const model = createOpenAI({ baseURL: `${dev.url}/v1`, apiKey: KEY, headers: { "x-toolsearch-execution": "edge" } }).chat("gpt-4o");
    const ran: string[] = [];
    const tools = {
      note: tool({
        description: "Write a note in the client's notebook.",
        inputSchema: jsonSchema({ type: "object", properties: { text: { type: "string" } } }),
        execute: async () => (ran.push("note"), "noted"),
      }),
    };
    const system = "You are a helpful agent (AI SDK, edge execution).";
    const messages: ModelMessage[] = [{ role: "user", content: "add one to the counter with the ai sdk" }];
    const first = await generateText({ model, system, messages, tools, stopWhen: stepCountIs(5) });
    expect(first.text).toBe("Done with mcp__fixture__counter_add: total: 1");
    expect(first.steps).toHaveLength(1); // the SDK saw an answer, not a call to a tool it lacks
    messages.push(...first.responseMessages, { role: "user", content: "add one to the counter again with the ai sdk" });
    const second = await generateText({ model, system, messages, tools, stopWhen: stepCountIs(5) });
    expect(second.text).toBe("Done with mcp__fixture__counter_add: total: 2");
    expect(ran).toEqual([]);
    // one session (one upstream MCP session: the counter kept its state), append-only upstream requests
    expect((await stats()).initializes).toBe(before + 1);
    const sessions = new Set(llm.requests.map((r) => JSON.stringify(r.body.messages.slice(0, 2))));
    expect(sessions.size).toBe(1);
    expectAppendOnly(llm.requests);
  });
});

describe("secrets", () => {
  it("the secret is in no response, audit row, log line or stored byte", async () => {
    await api("GET", "/v1/audit?limit=500");
    logs.push(dev.log());
    for (const text of [...responses, ...logs]) expect(text).not.toContain(EDGE_TOKEN);
    const files: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true })) {
        if (e.isDirectory()) await walk(join(dir, e.name));
        else if (e.name !== ".env") files.push(join(dir, e.name));
      }
    };
    await walk(state);
    expect(files.some((f) => f.endsWith(".sqlite"))).toBe(true);
    for (const f of [...files, join(ROOT, "test/worker/catalogs/edge@1.0.0.json")])
      expect((await readFile(f)).includes(EDGE_TOKEN), f).toBe(false);
  });
});
