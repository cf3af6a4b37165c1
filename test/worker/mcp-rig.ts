// What the MCP gateway's workers tests share: the Worker's fetch with vars over the test
// deployment's, an MCP SDK client connected through it (counting list_changed), raw JSON-RPC POSTs
// (SSE answers unpacked), and a session object's stored state and audit rows.
import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import worker from "./main.ts";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_A, BASE, callWith, EDGE, OPEN_RULES, sessionObject, type Json } from "./helpers.ts";

/** The Worker's fetch with vars over the test deployment's (the edge catalog by default). */
export const gateway =
  (vars: Record<string, unknown> = EDGE) =>
  (u: string | URL | Request, init?: RequestInit) =>
    worker.fetch(new Request(u, init), { ...env, ...vars } as Env, createExecutionContext());

/** SERVERS with only server-everything: the fixture and legacy servers become client-run. */
export const everythingOnly = () => ({
  ...EDGE,
  SERVERS: JSON.stringify({ everything: (JSON.parse(env.SERVERS as unknown as string) as Json).everything }),
});

export async function connect(query = "", auth: Record<string, string> = AUTH_A, vars: Record<string, unknown> = EDGE) {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp?${query}`), {
    fetch: gateway(vars),
    requestInit: { headers: auth },
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  const changed: number[] = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changed.push(Date.now()));
  await client.connect(transport);
  return { client, transport, changed, id: transport.sessionId! };
}

export const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);
export const textOf = (r: Json) => (r.content as Json[]).map((c) => c.text).join("\n");
export const audit = async (id: string) => (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=100`)).body.events as Json[];

/** A raw JSON-RPC POST to /mcp. */
export async function rpc(body: unknown, headers: Record<string, string> = {}, vars: Record<string, unknown> = EDGE) {
  const res = await gateway(vars)(`${BASE}/mcp`, {
    method: "POST",
    headers: { ...AUTH_A, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  // an SSE answer carries its JSON-RPC messages in data: lines
  const data = res.headers.get("content-type")?.startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)))
    : [JSON.parse(text || "null")];
  return { status: res.status, headers: res.headers, messages: data as Json[] };
}

/** An initialize request at `protocolVersion`. */
export const initialize = (protocolVersion = "2025-11-25", id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

export async function stored(id: string) {
  return runInDurableObject(sessionObject(id), async (o: SessionDO) => ({
    state: await o.get(OPEN_RULES),
    events: o.history()?.searches ?? [],
  }));
}
