// Edge execution against an MCP server that speaks only 2026-07-28 (test/fixtures/mcp-2026-server.ts,
// the v2 SDK: no initialize, no Mcp-Session-Id), from the Worker in `wrangler dev` (workerd without
// the test plugin's patched Function: the v2 client must not generate code). What a user checks:
// REST calls and the MCP gateway's callTool reach it, each call is one request after the first
// call's server/discover, the audit rows are complete, nothing is resumed, recovered or DELETEd,
// a restart of the server loses nothing (no `reconnected`, no failed call once it is back), an
// older (2025) server back at its URL is asked again and used, and a call past the server's
// timeoutMs is a 504 audited `timeout`.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything, startModern } from "../fixtures/edge-servers.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";
import { restCall } from "../fixtures/rest-call.ts";

const KEY = "modern-test-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let modern: Awaited<ReturnType<typeof startModern>>;
let dev: DevServer;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, AUTH, method, body);
}
const session = async () => (await api("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body.id as string;
const call = (id: string, name: string, args: unknown) => api("POST", `/v1/sessions/${id}/tools/${name}/call`, { arguments: args });
const audit = async (id: string) =>
  ((await api("GET", `/v1/sessions/${id}/audit?type=call&limit=500`)).body.events as Json[]).map((e) => [
    e.tool,
    e.outcome,
    e.detail,
    e.via,
  ]);
/** what the server received since the last reset: JSON-RPC method, tool, protocol header, session header */
const received = async () => {
  const { requests } = (await (await fetch(`${modern.base}/_control/stats`)).json()) as { requests: Json[] };
  await fetch(`${modern.base}/_control/reset`, { method: "POST" });
  return requests.map((r) => [r.method, r.name, r.protocol, r.session]);
};
const MODERN = "2026-07-28";

beforeAll(async () => {
  modern = await startModern();
  const SERVERS = JSON.stringify({ modern: { url: modern.url, timeoutMs: 5000 } });
  dev = await startWranglerDev({
    env: "test",
    persistTo: await tempDir("toolsearch-modern-"),
    vars: { CATALOG: "modern@1.0.0.json", SERVERS, OPENAI_API_KEY: "unused", API_KEYS: JSON.stringify({ [KEY]: "modern" }) },
  });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await modern?.stop();
});

describe("edge calls to an MCP 2026-07-28 server", () => {
  it("REST calls: server/discover once, then one tools/call each, no session; structured content; audited", async () => {
    await received();
    const id = await session();
    expect(await call(id, "mcp__modern__echo", { message: "first" })).toEqual({
      status: 200,
      body: { content: [{ type: "text", text: "Echo: first" }] },
    });
    expect((await call(id, "mcp__modern__add", { a: 20, b: 22 })).body).toEqual({
      content: [{ type: "text", text: "The sum is 42." }],
      structuredContent: { sum: 42 },
    });
    // a second session probes again: what a server speaks is kept per session, like its MCP session
    const other = await session();
    expect((await call(other, "mcp__modern__echo", { message: "other" })).body.content[0].text).toBe("Echo: other");
    expect(await received()).toEqual([
      ["server/discover", null, MODERN, null],
      ["tools/call", "echo", MODERN, null],
      ["tools/call", "add", MODERN, null],
      ["server/discover", null, MODERN, null],
      ["tools/call", "echo", MODERN, null],
    ]);
    expect(await audit(id)).toEqual([
      ["mcp__modern__add", "ok", null, "rest"],
      ["mcp__modern__echo", "ok", null, "rest"],
    ]);
    // ending the session sends the server nothing: it has no session to end
    expect((await api("DELETE", `/v1/sessions/${id}`)).status).toBe(204);
    expect(await received()).toEqual([]);
  });

  it("the MCP gateway's callTool reaches it, audited via mcp, with the server's progress", async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp?model=gpt-5`), { requestInit: { headers: AUTH } });
    const client = new Client({ name: "modern-gateway-test", version: "1.0.0" });
    await client.connect(transport);
    const found = await client.callTool({ name: "toolSearch", arguments: { query: "echo the message back" } });
    expect((found.content as Array<{ text: string }>)[0]!.text).toContain('{"name":"mcp__modern__echo"');
    const r = await client.callTool({
      name: "callTool",
      arguments: { name: "mcp__modern__echo", arguments: { message: "via the gateway" } },
    });
    expect(r.content).toEqual([{ type: "text", text: "Echo: via the gateway" }]);
    expect((await received()).filter((q) => q[0] === "tools/call")).toEqual([["tools/call", "echo", MODERN, null]]);
    // the gateway's MCP session is a toolsearch session: its audit has the call
    expect(transport.sessionId).toMatch(/^ses_/);
    expect(await audit(transport.sessionId!)).toEqual([["mcp__modern__echo", "ok", null, "mcp"]]);
    // the server's notifications/progress reach the client through the gateway
    const progress: number[] = [];
    const slow = await client.callTool({ name: "callTool", arguments: { name: "mcp__modern__slow", arguments: { ms: 200 } } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(slow.content).toEqual([{ type: "text", text: "slept 200 ms" }]);
    expect(progress).toEqual([1, 2]);
    await client.close();
  });

  it("a restart of the server loses nothing: no reconnect, no failed call once it is back", async () => {
    const id = await session();
    expect((await call(id, "mcp__modern__echo", { message: "before" })).status).toBe(200);
    await modern.stop();
    const down = await call(id, "mcp__modern__echo", { message: "while down" });
    expect(down.status).toBe(502);
    expect(down.body.error.message).toMatch(
      /^server modern failed on mcp__modern__echo: no response from the server \(connection refused or lost\)/,
    );
    modern = await startModern(modern.port);
    for (const message of ["after", "again"]) {
      expect((await call(id, "mcp__modern__echo", { message })).body).toEqual({ content: [{ type: "text", text: `Echo: ${message}` }] });
    }
    // the restarted server got the two calls, nothing else: no discover again, no initialize
    expect(await received()).toEqual([
      ["tools/call", "echo", MODERN, null],
      ["tools/call", "echo", MODERN, null],
    ]);
    expect(await audit(id)).toEqual([
      ["mcp__modern__echo", "ok", null, "rest"],
      ["mcp__modern__echo", "ok", null, "rest"],
      ["mcp__modern__echo", "transport_error", expect.stringMatching(/^no response from the server/), "rest"],
      ["mcp__modern__echo", "ok", null, "rest"],
    ]);
  });

  it("an older server back at the URL (server-everything, 2025): the session asks again, once, and goes on with it", async () => {
    const id = await session();
    expect((await call(id, "mcp__modern__echo", { message: "modern" })).status).toBe(200);
    await modern.stop();
    const older = await startEverything(modern.port);
    try {
      for (const message of ["older", "older again"]) {
        expect((await call(id, "mcp__modern__echo", { message })).body).toEqual({ content: [{ type: "text", text: `Echo: ${message}` }] });
      }
      expect(await audit(id)).toEqual([
        ["mcp__modern__echo", "ok", null, "rest"],
        ["mcp__modern__echo", "ok", null, "rest"],
        ["mcp__modern__echo", "ok", null, "rest"],
      ]);
    } finally {
      await older.stop();
      modern = await startModern(modern.port);
    }
  });

  it("a call slower than the server's timeoutMs is a 504, audited as timeout (the SDK drops the request)", async () => {
    const id = await session();
    const r = await call(id, "mcp__modern__slow", { ms: 8000 });
    expect(r.status).toBe(504);
    expect(r.body.error.message).toMatch(/^server modern did not answer mcp__modern__slow within 5000 ms/);
    expect(await audit(id)).toEqual([["mcp__modern__slow", "timeout", "no answer within 5000 ms", "rest"]]);
  });
});
