// The MCP gateway as MCP clients meet it: `wrangler dev` (workerd without the test plugin's patched
// Function, so any code generation would fail here) behind real HTTP, on the demo catalog with
// SERVERS naming server-everything over Streamable HTTP, and two independent clients: the MCP SDK
// Client with StreamableHTTPClientTransport (the stable surface, the default, and the dynamic
// `?activation=inject` form), the v2 SDK client on MCP 2026-07-28 (the v2 server answers it inside
// workerd), and the MCP Inspector's CLI mode (its own client, the v2 SDK). Tools of the demo's other
// servers are client-run: not offered here.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEdgeServers, type EdgeServers } from "../fixtures/edge-servers.ts";
import { DEV_AUTH, DEV_API_KEY, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { ROOT, tempDir } from "./helpers.ts";

let servers: EdgeServers;
let dev: DevServer;

beforeAll(async () => {
  servers = await startEdgeServers();
  dev = await startWranglerDev({
    persistTo: await tempDir("toolsearch-mcp-"),
    vars: { SERVERS: JSON.stringify({ everything: { url: servers.everything } }) },
  });
}, 120_000);
afterAll(async () => {
  await dev?.stop();
  await servers?.stop();
});

async function connect(query: string) {
  const transport = new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp?${query}`), { requestInit: { headers: DEV_AUTH } });
  const client = new Client({ name: "gateway-test", version: "1.0.0" });
  const changed: string[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async (n) => void changed.push(n.method));
  await client.connect(transport);
  return { client, transport, changed };
}

describe("MCP gateway through wrangler dev, SDK client", () => {
  it("the stable surface: search, then callTool with the name and schema the result gives; tools/list never changes", async () => {
    const { client, changed } = await connect("model=gpt-5");
    const listed = JSON.stringify((await client.listTools()).tools);
    expect(JSON.parse(listed).map((t: { name: string }) => t.name)).toEqual(["toolSearch", "callTool"]);
    const r = await client.callTool({ name: "toolSearch", arguments: { query: "add two numbers" } });
    const text = (r.content as Array<{ text: string }>)[0]!.text;
    // what a model reads: the exact name, and its input schema as one line of JSON
    const schema = text.split("\n").find((l) => l.startsWith('{"name":"mcp__everything__get-sum"'))!;
    expect(JSON.parse(schema).inputSchema.required).toEqual(["a", "b"]);
    const sum = await client.callTool({ name: "callTool", arguments: { name: JSON.parse(schema).name, arguments: { a: 20, b: 22 } } });
    expect(sum.content).toEqual([{ type: "text", text: "The sum of 20 and 22 is 42." }]);
    expect(changed).toEqual([]);
    expect(JSON.stringify((await client.listTools()).tools)).toBe(listed);
    await client.close();
  });

  it("activation=inject: initialize, list, search, list_changed, re-list, a call through to server-everything, DELETE", async () => {
    const { client, transport, changed } = await connect("activation=inject&model=gpt-5&listing=names");
    expect(transport.sessionId).toMatch(/^ses_/);
    expect(client.getServerVersion()?.name).toBe("toolsearch");
    const instructions = client.getInstructions()!;
    // the demo's other servers are run by clients: named as not offered, none of their tools listed
    expect(instructions).toMatch(/cannot reach their servers \(a client runs them itself\): .*github \(26\)/);
    const listed = (await client.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
    // the deferred listing: in toolSearch's description, and not again in the instructions
    expect(listed[0]!.description).toContain("mcp__everything__echo");
    expect(instructions).not.toContain("mcp__everything__echo");
    expect(listed[0]!.description).not.toContain("mcp__github__");

    const r = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    expect(JSON.stringify(r.content)).toContain("Loaded 1 tool");
    expect(changed).toEqual(["notifications/tools/list_changed"]);
    const after = (await client.listTools()).tools;
    expect(after.map((t) => t.name)).toEqual(["toolSearch", "callTool", "mcp__everything__echo"]);
    expect(after.at(-1)!.inputSchema.properties).toHaveProperty("message");
    const echo = await client.callTool({ name: "mcp__everything__echo", arguments: { message: "from wrangler dev" } });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: from wrangler dev" }]);

    const id = transport.sessionId!;
    await transport.terminateSession();
    const gone = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: {
        ...DEV_AUTH,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(gone.status).toBe(404);
    await client.close();
  });
});

describe("MCP gateway through wrangler dev, the v2 client on 2026-07-28", () => {
  it("server/discover, the stable tools/list with cache hints, toolSearch then callTool; the audit row names the client", async () => {
    const transport = new TransportV2(new URL(`${dev.url}/mcp?model=gpt-5`), { requestInit: { headers: DEV_AUTH } });
    const client = new ClientV2({ name: "v2-wrangler", version: "2.4.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(transport);
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(transport.sessionId).toBeUndefined();
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
    expect(list).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });
    const r = await client.callTool({ name: "toolSearch", arguments: { query: "add two numbers" } });
    expect((r.content as Array<{ text: string }>)[0]!.text).toContain('{"name":"mcp__everything__get-sum","inputSchema":');
    const sum = await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__get-sum", arguments: { a: 40, b: 2 } } });
    expect(sum.content).toEqual([{ type: "text", text: "The sum of 40 and 2 is 42." }]);
    expect(JSON.stringify(await client.listTools())).toBe(JSON.stringify(list));
    await client.close();
    // rows reach D1 in batches, about a second after the call
    let events: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 50 && !events.length; i++) {
      await new Promise((done) => setTimeout(done, 200));
      const res = await fetch(`${dev.url}/v1/audit?type=call&tool=mcp__everything__get-sum`, { headers: DEV_AUTH });
      events = ((await res.json()) as { events: Array<Record<string, unknown>> }).events.filter((e) => e.client === "v2-wrangler/2.4.0");
    }
    expect(events.map((e) => [e.tool, e.outcome, e.via])).toEqual([["mcp__everything__get-sum", "ok", "mcp"]]);
  });
});

const run = promisify(execFile);
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

/** The MCP Inspector's CLI mode (its own client, the v2 SDK): one process, one session per call. */
async function inspector(query: string, ...args: string[]) {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, "--cli", `${dev.url}/mcp?${query}`, "--header", `Authorization: Bearer ${DEV_API_KEY}`, ...args],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout);
}

describe("MCP gateway through wrangler dev, the MCP Inspector CLI", () => {
  it("tools/list shows toolSearch and callTool, not the deferred tools", async () => {
    const listed = await inspector("", "--method", "tools/list");
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(["toolSearch", "callTool"]);
  });

  it("tools/call runs toolSearch, and (every tool listed) a tool through to server-everything", async () => {
    const r = await inspector(
      "deferral=on",
      "--method",
      "tools/call",
      "--tool-name",
      "toolSearch",
      "--tool-arg",
      "query=select:mcp__everything__echo",
    );
    expect(r.content[0].text).toContain("Loaded 1 tool");
    // the Inspector calls only tools it has listed, and each of its runs is a new session
    const sum = await inspector(
      "deferral=off",
      "--method",
      "tools/call",
      "--tool-name",
      "mcp__everything__get-sum",
      "--tool-arg",
      "a=2",
      "b=40",
    );
    expect(sum.content[0].text).toBe("The sum of 2 and 40 is 42.");
  });
});
