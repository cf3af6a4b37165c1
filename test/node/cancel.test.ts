// Cancellation when the client goes away (issue 22), against a real `wrangler dev` whose sessions
// run a slow tool on the stateful fixture MCP server (test/fixtures/mcp-http-server.ts, which
// records each notifications/cancelled it receives). The client is real: Node's fetch closing its
// socket, the SDK's MCP client cancelling a request. In each case the server must be sent
// notifications/cancelled for the call it is running, and the call's audit row must end
// `cancelled`: the REST call route, /mcp (the connection closed mid-call, and a
// notifications/cancelled in a POST of its own), and the agent endpoints' streams
// (/v1/chat/completions and /v1/responses, the tool running at the edge in a hidden round).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serversVar, startEdgeServers, type EdgeServers } from "../fixtures/edge-servers.ts";
import { startEdgeWorker } from "../fixtures/edge-worker.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import type { DevServer } from "../fixtures/wrangler-dev.ts";
import { restCall } from "../fixtures/rest-call.ts";

const KEY = "cancel-test-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** how often open streams carry a comment (KEEPALIVE_MS in worker/chat/stream.ts, MCP_KEEPALIVE_MS in worker/mcp/cancel.ts) */
const KEEPALIVE_MS = 5_000;
/** long enough that only a cancellation ends it within the test */
const SLOW = { ms: 60_000 };
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let servers: EdgeServers;
let llm: ScriptedLLM;
let dev: DevServer;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, AUTH, method, body);
}
const stats = async () => (await fetch(`${servers.fixtureBase}/_control/stats`)).json() as Promise<Json>;
const edgeSession = async () =>
  (await api("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", execution: "edge" })).body.id as string;

async function until<T>(what: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Wait until the fixture runs one more slow call than `before`; its MCP session id. */
async function running(before: number): Promise<string> {
  return until(async () => {
    const slow = ((await stats()).calls as Json[]).filter((c) => c.tool === "slow");
    return slow.length > before ? (slow[slow.length - 1].session as string) : undefined;
  });
}
const slowCalls = async () => ((await stats()).calls as Json[]).filter((c) => c.tool === "slow").length;

/**
 * After the client went away (at `gone`): the fixture got notifications/cancelled for the call it
 * ran in `upstream`, within two keep-alive intervals, and the session's row for that call ends
 * `cancelled` with `reason` in its detail. Prints how long the server waited for the news.
 */
async function expectCancelled(what: string, id: string, upstream: string, gone: number, reason: RegExp): Promise<void> {
  const cancelled = await until(async () => {
    const seen = ((await stats()).cancelled as Json[]).filter((c) => c.session === upstream);
    return seen.length ? seen : undefined;
  });
  const ms = Date.now() - gone;
  console.log(`${what}: the server was sent notifications/cancelled ${ms} ms after the client went away (polled every 50 ms)`);
  expect(ms).toBeLessThan(2 * KEEPALIVE_MS + 2000);
  expect(cancelled).toEqual([{ tool: "slow", session: upstream, reason: expect.any(String) }]);
  const row = await until(async () => {
    const events = (await api("GET", `/v1/sessions/${id}/audit?type=call&tool=mcp__fixture__slow`)).body.events as Json[];
    return events.find((e) => e.outcome !== "started");
  });
  expect([row.outcome, row.detail]).toEqual(["cancelled", expect.stringMatching(reason)]);
}

beforeAll(async () => {
  [servers, llm] = await Promise.all([startEdgeServers(), startScriptedLLM()]);
  dev = await startEdgeWorker("toolsearch-cancel-", {
    CATALOG: "edge@1.0.0.json",
    SERVERS: serversVar(servers, 120_000),
    OPENAI_BASE_URL: llm.url,
    OPENAI_API_KEY: "test-key",
    API_KEYS: JSON.stringify({ [KEY]: "cancel-tests" }),
  });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await llm?.close();
  await servers?.stop();
});

/** POST `path` as a stream in an edge session; resolves once the first bytes arrived (the stream is open). */
async function openStream(path: string, id: string, body: unknown, ac: AbortController): Promise<string> {
  const res = await fetch(`${dev.url}${path}`, {
    method: "POST",
    headers: { ...AUTH, "x-toolsearch-session": id },
    body: JSON.stringify(body),
    signal: ac.signal,
  });
  expect(res.status).toBe(200);
  const first = await res.body!.getReader().read();
  return new TextDecoder().decode(first.value);
}
/** The scripted model loads the slow tool and calls it with SLOW; with [preamble] it says something first. */
const SLOW_TASK = `call the slow fixture tool [args ${JSON.stringify(SLOW)}]`;

async function mcpClient(): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`), {
    requestInit: { headers: { authorization: AUTH.authorization } },
  });
  const client = new Client({ name: "cancel-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

describe("a client that goes away cancels the call it started", () => {
  it("/v1/chat/completions: the client closes the stream while the tool runs at the edge (the stream opened for the call)", async () => {
    const id = await edgeSession();
    const before = await slowCalls();
    const ac = new AbortController();
    const body = { model: "gpt-4o", stream: true, messages: [{ role: "user", content: SLOW_TASK }] };
    expect(await openStream("/v1/chat/completions", id, body, ac)).toContain('"role":"assistant"');
    const upstream = await running(before);
    const gone = Date.now();
    ac.abort();
    await expectCancelled("chat stream", id, upstream, gone, /cancelled: the client went away/);
  });

  it("/v1/responses: the client closes the stream while the tool runs at the edge (the stream opened with text)", async () => {
    const id = await edgeSession();
    const before = await slowCalls();
    const ac = new AbortController();
    const body = { model: "gpt-4o", stream: true, input: `${SLOW_TASK} [preamble]` };
    expect(await openStream("/v1/responses", id, body, ac)).toContain("response.created");
    const upstream = await running(before);
    const gone = Date.now();
    ac.abort();
    await expectCancelled("responses stream", id, upstream, gone, /cancelled: the client went away/);
  });

  it("/mcp: the client closes the connection of its tools/call", async () => {
    const { client, transport } = await mcpClient();
    const before = await slowCalls();
    const ac = new AbortController();
    const res = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: {
        ...AUTH,
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
        "mcp-protocol-version": transport.protocolVersion!,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 41,
        method: "tools/call",
        params: { name: "callTool", arguments: { name: "mcp__fixture__slow", arguments: SLOW } },
      }),
      signal: ac.signal,
    });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream"]);
    const upstream = await running(before);
    const gone = Date.now();
    ac.abort();
    await expectCancelled("/mcp connection closed", transport.sessionId!, upstream, gone, /cancelled: the client went away/);
    await client.close();
  });

  it("/mcp: notifications/cancelled from the SDK client, in a POST of its own, while the call runs", async () => {
    const { client, transport } = await mcpClient();
    const before = await slowCalls();
    const ac = new AbortController();
    const call = client
      .callTool({ name: "callTool", arguments: { name: "mcp__fixture__slow", arguments: SLOW } }, undefined, {
        signal: ac.signal,
        timeout: 120_000,
      })
      .catch((e: unknown) => e);
    const upstream = await running(before);
    const gone = Date.now();
    ac.abort("the user pressed stop");
    expect(String(await call)).toMatch(/the user pressed stop/);
    await expectCancelled(
      "/mcp notifications/cancelled",
      transport.sessionId!,
      upstream,
      gone,
      /cancelled: the client cancelled the request \(notifications\/cancelled: the user pressed stop\)/,
    );
    await client.close();
  });

  it("REST: a client gone before the answer starts is not seen in wrangler dev, and the call runs to its end", async () => {
    const id = await edgeSession();
    const before = await slowCalls();
    const ac = new AbortController();
    const pending = fetch(`${dev.url}/v1/sessions/${id}/tools/mcp__fixture__slow/call`, {
      method: "POST",
      headers: AUTH,
      body: JSON.stringify({ arguments: { ms: 2000 } }),
      signal: ac.signal,
    }).catch((e: unknown) => e);
    const upstream = await running(before);
    ac.abort();
    await pending;
    const row = await until(async () => {
      const events = (await api("GET", `/v1/sessions/${id}/audit?type=call&tool=mcp__fixture__slow`)).body.events as Json[];
      return events.find((e) => e.outcome !== "started");
    });
    expect(row.outcome).toBe("ok");
    expect(((await stats()).cancelled as Json[]).filter((c) => c.session === upstream)).toEqual([]);
  });
});
