// Faults against a real `wrangler dev` (issue 22), with real MCP servers started here:
// server-everything killed and restarted mid-run (old sessions recover on their next call, each
// audited "reconnected"; while it is down the error says the connection failed); a server that
// keeps no MCP sessions (the fixture in stateless mode, as MCP 2026-07-28 servers); a SERVERS
// header naming a secret that is not set (audited config_error; a listener in that server's place
// hears no request); and the Worker
// killed while calls run on a slow server (after the restart every call the server saw has its
// row, as `unknown`, in the session's audit and delivered to D1).
import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_TOKEN, startEdgeServers, startEverything, type EdgeServers } from "../fixtures/edge-servers.ts";
import { freePort, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";
import { restCall } from "../fixtures/rest-call.ts";

const KEY = "faults-test-key-0123456789";
const AUTH = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let servers: EdgeServers;
let everything: { url: string; stop(): Promise<void> };
let everythingPort: number;
let dev: DevServer;
let state: string;
let envFile: string;
// `legacy`'s URL: a listener that records every request, so "nothing is sent" is checked where it would arrive
let unsent: { server: Server; url: string; heard: string[] };

async function startWorker(): Promise<DevServer> {
  const SERVERS = JSON.stringify({
    everything: { url: everything.url, timeoutMs: 10_000 },
    // a header naming a secret this deployment does not have
    legacy: { url: unsent.url, headers: { authorization: "Bearer ${MISSING_TOKEN}" }, timeoutMs: 10_000 },
    fixture: { url: servers.fixture, headers: { authorization: "Bearer ${EDGE_TEST_TOKEN}" }, timeoutMs: 20_000 },
  });
  return startWranglerDev({
    env: "test",
    persistTo: state,
    envFile,
    vars: { CATALOG: "edge@1.0.0.json", SERVERS, OPENAI_API_KEY: "unused", API_KEYS: JSON.stringify({ [KEY]: "faults" }) },
  });
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, AUTH, method, body);
}
const session = async () => (await api("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body.id as string;
const callTool = (id: string, name: string, args: unknown) => api("POST", `/v1/sessions/${id}/tools/${name}/call`, { arguments: args });
const calls = async (id: string) =>
  ((await api("GET", `/v1/sessions/${id}/audit?type=call&limit=500`)).body.events as Json[]).map((e) => [e.tool, e.outcome, e.detail]);
const stats = async () => (await fetch(`${servers.fixtureBase}/_control/stats`)).json() as Promise<Json>;

beforeAll(async () => {
  everythingPort = await freePort();
  [servers, everything, state] = await Promise.all([
    startEdgeServers({}, { stateless: true }),
    startEverything(everythingPort),
    tempDir("toolsearch-faults-"),
  ]);
  const heard: string[] = [];
  const listener = createServer((req, res) => {
    heard.push(`${req.method} ${req.url}`);
    res.writeHead(503).end();
  });
  const port = await freePort();
  await new Promise<void>((r) => listener.listen(port, "127.0.0.1", r));
  unsent = { server: listener, url: `http://127.0.0.1:${port}/mcp`, heard };
  envFile = join(state, ".env");
  await writeFile(envFile, `EDGE_TEST_TOKEN=${EDGE_TOKEN}\n`);
  dev = await startWorker();
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await everything?.stop();
  await servers?.stop();
  unsent?.server.close();
});

describe("faults in wrangler dev", () => {
  it("server-everything killed and restarted: every old session recovers on its next call", async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, session));
    for (const id of ids) expect((await callTool(id, "mcp__everything__echo", { message: "before" })).status).toBe(200);
    await everything.stop();
    const down = await callTool(ids[0]!, "mcp__everything__echo", { message: "while down" });
    expect(down.status).toBe(502);
    expect(down.body.error.message).toMatch(
      /^server everything failed on mcp__everything__echo: no response from the server \(connection refused or lost\)/,
    );
    everything = await startEverything(everythingPort);
    for (const id of ids) {
      const r = await callTool(id, "mcp__everything__echo", { message: "after" });
      expect(r.status, id).toBe(200);
      expect(r.body.content[0]).toEqual({ type: "text", text: "Echo: after" });
      expect((await calls(id))[0]).toEqual(["mcp__everything__echo", "ok", expect.stringMatching(/^reconnected: /)]);
      // and the session it opened is kept: the next call needs no reconnect
      await callTool(id, "mcp__everything__echo", { message: "again" });
      expect((await calls(id))[0]).toEqual(["mcp__everything__echo", "ok", null]);
    }
    expect((await calls(ids[0]!))[2]).toEqual(["mcp__everything__echo", "transport_error", expect.stringMatching(/^no response/)]);
  });

  it("a server that keeps no MCP sessions works call after call, with nothing kept", async () => {
    const id = await session();
    for (const n of [1, 2]) {
      const r = await callTool(id, "mcp__fixture__counter_add", { n });
      expect(r.status).toBe(200);
      expect(r.body.content[0].text).toBe(`total: ${n}`); // a new server per request: no state carries
    }
    expect(((await stats()).calls as Json[]).filter((c) => c.tool === "counter_add").every((c) => c.session === null)).toBe(true);
    expect(await calls(id)).toEqual([
      ["mcp__fixture__counter_add", "ok", null],
      ["mcp__fixture__counter_add", "ok", null],
    ]);
  });

  it("a header naming a secret that is not set is audited as a config problem, and nothing is sent", async () => {
    const id = await session();
    const r = await callTool(id, "mcp__legacy__echo", { message: "x" });
    expect(r.body.error.message).toBe(
      "SERVERS: legacy.headers.authorization uses the secret MISSING_TOKEN, which is not set (wrangler secret put MISSING_TOKEN)",
    );
    expect(await calls(id)).toEqual([["mcp__legacy__echo", "config_error", r.body.error.message]]);
    // the listener in legacy's place hears a request sent to it, but none from the Worker
    await fetch(unsent.url, { method: "POST" });
    expect(unsent.heard).toEqual(["POST /mcp"]);
  });

  it("the Worker killed while calls run: after the restart each call the server saw has its row, as unknown, also in D1", async () => {
    const ids = await Promise.all(Array.from({ length: 4 }, session));
    const seen = async () => ((await stats()).calls as Json[]).filter((c) => c.tool === "slow").length;
    const before = await seen();
    const running = ids.map((id) => callTool(id, "mcp__fixture__slow", { ms: 4000 }).catch((e: unknown) => e));
    for (let i = 0; i < 200 && (await seen()) < before + ids.length; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await seen()).toBe(before + ids.length);
    await dev.stop();
    await Promise.all(running);
    dev = await startWorker();
    for (const id of ids) {
      expect(await calls(id)).toEqual([
        ["mcp__fixture__slow", "unknown", "the session restarted while the call was in flight: whether the server ran it is not known"],
      ]);
    }
    // delivered to D1 by the alarm the restart scheduled
    let delivered: Json[] = [];
    for (let i = 0; i < 100 && delivered.length < ids.length; i++) {
      await new Promise((r) => setTimeout(r, 200));
      delivered = (await api("GET", "/v1/audit?outcome=unknown&limit=500")).body.events;
    }
    expect(delivered.map((e) => e.session).sort()).toEqual([...ids].sort());
  });
});
