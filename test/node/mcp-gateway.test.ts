// The MCP gateway as MCP clients meet it: `wrangler dev` (workerd without the test plugin's patched
// Function, so any code generation would fail here) behind real HTTP, and two independent clients:
// the MCP SDK Client with StreamableHTTPClientTransport, and the MCP Inspector's CLI mode.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_AUTH, DEV_API_KEY, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { ROOT, tempDir } from "./helpers.ts";

let dev: DevServer;

beforeAll(async () => {
  dev = await startWranglerDev({ persistTo: await tempDir("toolsearch-mcp-") });
}, 90_000);
afterAll(async () => {
  await dev?.stop();
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
  it("initialize, list, search, list_changed, re-list, DELETE", async () => {
    const { client, transport, changed } = await connect("deferral=on&model=gpt-5");
    expect(transport.sessionId).toMatch(/^ses_/);
    expect(client.getServerVersion()?.name).toBe("toolsearch");
    expect(client.getInstructions()).toContain("mcp__github__create_issue");
    const before = (await client.listTools()).tools.map((t) => t.name);
    expect(before).toContain("toolSearch");
    expect(before).not.toContain("mcp__github__create_issue");

    const r = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__github__create_issue" } });
    expect(JSON.stringify(r.content)).toContain("Loaded 1 tool");
    expect(changed).toEqual(["notifications/tools/list_changed"]);
    const after = (await client.listTools()).tools;
    expect(after.map((t) => t.name)).toEqual([...before, "mcp__github__create_issue"]);
    expect(after.at(-1)!.inputSchema.properties).toHaveProperty("title");

    const id = transport.sessionId!;
    await transport.terminateSession();
    const gone = await fetch(`${dev.url}/mcp`, {
      method: "POST",
      headers: { ...DEV_AUTH, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(gone.status).toBe(404);
    await client.close();
  });
});

const run = promisify(execFile);
const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

/** The MCP Inspector's CLI mode (its own client, the v2 SDK): one process, one session per call. */
async function inspector(query: string, ...args: string[]) {
  const { stdout } = await run(process.execPath, [INSPECTOR, "--cli", `${dev.url}/mcp?${query}`, "--header", `Authorization: Bearer ${DEV_API_KEY}`, ...args], { timeout: 60_000 });
  return JSON.parse(stdout);
}

describe("MCP gateway through wrangler dev, the MCP Inspector CLI", () => {
  it("tools/list shows core tools and toolSearch, not the deferred tools", async () => {
    const listed = await inspector("deferral=on", "--method", "tools/list");
    const names = listed.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("toolSearch");
    expect(names).not.toContain("mcp__github__create_issue");
  });

  it("tools/call runs toolSearch", async () => {
    const r = await inspector("deferral=on", "--method", "tools/call", "--tool-name", "toolSearch", "--tool-arg", "query=select:mcp__github__create_issue");
    expect(r.content[0].text).toContain("Loaded 1 tool");
  });
});
