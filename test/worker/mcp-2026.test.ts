// MCP 2026-07-28 on /mcp, next to the 2025-era protocol: the v2 SDK client (@modelcontextprotocol/
// client, pinned to 2026-07-28 and in `auto` negotiation) discovers the gateway, lists the stable
// surface (ttlMs / cacheScope, the same bytes for every request and client), finds a tool with
// toolSearch and runs it with callTool on server-everything; the audit rows name the client from
// `_meta`; progress comes through. The v1 client on 2025-11-25 keeps its session, and its rows name its client too.
// Upstream MCP sessions are per client and per end user (M9): the fixture server's counter, kept
// per MCP session, shows which clients share one.
// Real Durable Objects and D1, the Worker's fetch.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { AUTH_A, AUTH_B, BASE, d1Rows, EDGE, KEY_A, type Json } from "./helpers.ts";
import { audit, connect, gateway, rpc, textOf } from "./mcp-rig.ts";

async function modern(
  name: string,
  mode: "pin" | "auto" = "pin",
  auth: Record<string, string> = AUTH_A,
  query = "",
  vars = EDGE,
  version = "2.4.0",
) {
  const seen: Array<{ method: string; status: number; sessionId: string | null }> = [];
  const fetch = async (u: string | URL | Request, init?: RequestInit) => {
    const res = await gateway(vars)(u, init);
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as Json) : {};
    seen.push({ method: body.method ?? init?.method ?? "GET", status: res.status, sessionId: res.headers.get("mcp-session-id") });
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp?${query}`), { fetch, requestInit: { headers: auth } });
  const client = new Client({ name, version }, { versionNegotiation: { mode: mode === "auto" ? "auto" : { pin: "2026-07-28" } } });
  await client.connect(transport);
  return { client, seen };
}

/** Rows reach D1 in batches, about a second after they are written. */
async function d1Until(where: string, ...binds: unknown[]): Promise<Json[]> {
  for (let i = 0; i < 100; i++) {
    const rows = await d1Rows(where, ...binds);
    if (rows.length) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no D1 row ${where}`);
}

describe("MCP 2026-07-28: the v2 client", () => {
  it("discovers, lists the stable surface with cache hints, searches and calls; no session id anywhere", async () => {
    const { client, seen } = await modern("v2-pinned");
    expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
    expect(client.getServerVersion()?.name).toBe("toolsearch");
    expect(client.getInstructions()).toMatch(/^This gateway serves 23 tools from 3 servers through tool search/);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    const list = await client.listTools();
    expect(list.tools.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
    expect(list).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private" });

    const found = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    expect(textOf(found)).toContain("Loaded 1 tool");
    expect(textOf(found)).toMatch(/^\{"name":"mcp__everything__echo","inputSchema":\{.*"message".*\}\}$/m);
    const echo = await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__echo", arguments: { message: "2026" } } });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: 2026" }]);
    // a direct tools/call of an offered tool works too
    const direct = await client.callTool({ name: "mcp__everything__echo", arguments: { message: "direct" } });
    expect(textOf(direct)).toBe("Echo: direct");

    expect(seen.map((s) => s.method)).toEqual(["server/discover", "tools/list", "tools/call", "tools/call", "tools/call"]);
    expect(seen.every((s) => s.status === 200 && s.sessionId === null)).toBe(true);
    const calls = await d1Until("WHERE client = ? AND type = 'call'", "v2-pinned/2.4.0");
    expect(calls.map((r) => [r.tenant, r.tool, r.outcome, r.via])).toEqual([
      ["tenant-a", "mcp__everything__echo", "ok", "mcp"],
      ["tenant-a", "mcp__everything__echo", "ok", "mcp"],
    ]);
    const searches = await d1Until("WHERE client = ? AND type = 'search'", "v2-pinned/2.4.0");
    expect(searches).toHaveLength(1);
  });

  it("tools/list is byte-identical across requests, clients and calls; a search never says another client loaded a tool", async () => {
    const a = await modern("v2-a");
    const b = await modern("v2-b", "auto");
    expect(b.client.getNegotiatedProtocolVersion()).toBe("2026-07-28"); // auto picks 2026 from server/discover
    const first = JSON.stringify(await a.client.listTools());
    await b.client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__get-sum" } });
    await b.client.callTool({ name: "callTool", arguments: { name: "mcp__everything__get-sum", arguments: { a: 1, b: 2 } } });
    // the client keeps tools/list for ttlMs, so fresh clients ask again
    const c = await modern("v2-c");
    expect(JSON.stringify(await b.client.listTools())).toBe(first);
    expect(JSON.stringify(await c.client.listTools())).toBe(first);
    for (const { seen } of [a, b, c]) expect(seen.filter((s) => s.method === "tools/list")).toHaveLength(1);
    // b loaded get-sum in the tenant's stable session; a's search still gets it as loaded, with its schema
    const again = textOf(await a.client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__get-sum" } }));
    expect(again).toContain("Loaded 1 tool");
    expect(again).not.toContain("Already loaded");
    expect(again).toMatch(/^\{"name":"mcp__everything__get-sum","inputSchema":/m);
    // another tenant with the same rules sees the same bytes
    const other = await modern("v2-b", "pin", AUTH_B);
    expect(JSON.stringify(await other.client.listTools())).toBe(first);
  });

  it("a call with a progressToken gets the server's notifications/progress on its own response stream", async () => {
    const { client } = await modern("v2-progress");
    const op = { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } };
    for (const params of [op, { name: "callTool", arguments: op }]) {
      const seen: Array<[number, number | undefined]> = [];
      const r = await client.callTool(params, { onprogress: (p) => void seen.push([p.progress, p.total]) });
      expect(textOf(r)).toMatch(/Long running operation completed/);
      expect(seen).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
    }
  });

  it("URL options shape the view: ?deferral=off lists the tools themselves; ?activation=inject stays stable", async () => {
    const { client } = await modern("v2-off", "pin", AUTH_A, "deferral=off");
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toHaveLength(23);
    expect(names).not.toContain("toolSearch");
    // a 2026 tools/list must not grow with calls: the dynamic form does not apply
    const inject = await modern("v2-inject", "pin", AUTH_A, "activation=inject");
    expect(inject.client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    await inject.client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    expect((await inject.client.listTools()).tools.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
  });

  it("the v1 client on 2025-11-25 keeps initialize and its session; its rows name its client", async () => {
    const { client, id } = await connect();
    expect(id).toMatch(/^ses_/);
    await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__echo", arguments: { message: "v1" } } });
    const rows = (await audit(id)).filter((e) => e.type === "call");
    expect(rows.map((e) => [e.tool, e.outcome, e.client])).toEqual([["mcp__everything__echo", "ok", "mcp-test/1.0.0"]]);
  });
});

describe("MCP 2026-07-28: upstream MCP sessions per client and per end user (M9)", () => {
  // the fixture's counter_add returns the total of the MCP session it runs in
  const add = async (client: Client) =>
    textOf(await client.callTool({ name: "callTool", arguments: { name: "mcp__fixture__counter_add", arguments: { n: 1 } } }));

  it("two clients of one key get their own upstream session; the same client again gets its own back", async () => {
    const a = await modern("m9-client-a");
    const b = await modern("m9-client-b");
    expect(await add(a.client)).toBe("total: 1");
    expect(await add(b.client)).toBe("total: 1");
    // another instance of client a (same clientInfo) continues a's upstream session
    const a2 = await modern("m9-client-a");
    expect(await add(a2.client)).toBe("total: 2");
    expect(await add(b.client)).toBe("total: 2");
    // the client's version is part of its identity: another version starts afresh
    const next = await modern("m9-client-a", "pin", AUTH_A, "", EDGE, "2.5.0");
    expect(await add(next.client)).toBe("total: 1");
    // tools/list stays the same bytes for every client
    expect(JSON.stringify(await a.client.listTools())).toBe(JSON.stringify(await b.client.listTools()));
  });

  it("x-toolsearch-user from an assertsUser key keeps end users apart with the same client", async () => {
    const BACKEND = "m9-backend-key-000000000";
    const vars = { ...EDGE, API_KEYS: JSON.stringify({ [KEY_A]: "tenant-a", [BACKEND]: { tenant: "tenant-a", assertsUser: true } }) };
    const as = (user: string) => ({ authorization: `Bearer ${BACKEND}`, "x-toolsearch-user": user });
    const u1 = await modern("m9-app", "pin", as("m9-u1"), "", vars);
    const u2 = await modern("m9-app", "pin", as("m9-u2"), "", vars);
    expect(await add(u1.client)).toBe("total: 1");
    expect(await add(u2.client)).toBe("total: 1");
    expect(await add(u1.client)).toBe("total: 2");
  });

  it("requests without clientInfo share the principal's one session, as before", async () => {
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "callTool" };
    const call = async (id: number) => {
      const params = { name: "callTool", arguments: { name: "mcp__fixture__counter_add", arguments: { n: 1 } }, _meta: meta };
      const r = await rpc({ jsonrpc: "2.0", id, method: "tools/call", params }, headers);
      return Number(/^total: (\d+)$/.exec(textOf(r.messages.at(-1)!.result))![1]);
    };
    const first = await call(1);
    expect(await call(2)).toBe(first + 1);
  });
});
