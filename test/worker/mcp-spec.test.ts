// The MCP gateway's transport rules from the 2025-11-25 spec and the official conformance suite:
// a present Origin that is not allowed gets 403 before anything is read or stored (the Worker's
// own origin, loopback ones and MCP_ALLOWED_ORIGINS pass); any supported MCP-Protocol-Version
// header is accepted on a session; a call that carries a progressToken gets the upstream
// server's notifications/progress (server-everything's long-running operation) on its stream;
// and every protocol-level bad input is a JSON-RPC error with nothing half-written.
import { describe, expect, it } from "vitest";
import { AUTH_A, BASE, callWith, EDGE } from "./helpers.ts";
import { connect, gateway, initialize, rpc, stored, textOf } from "./mcp-rig.ts";

describe("MCP gateway: Origin", () => {
  it("a disallowed Origin gets 403 with a JSON-RPC error on every method, and no session is made", async () => {
    const { id } = await connect();
    const init = await rpc(initialize(), { origin: "https://evil.example" });
    expect(init.status).toBe(403);
    expect(init.messages[0].error).toMatchObject({
      message: expect.stringMatching(/Origin https:\/\/evil\.example is not allowed/),
    });
    expect(init.headers.get("mcp-session-id")).toBeNull();
    const headers = { ...AUTH_A, origin: "http://localhost.evil.example", "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    for (const method of ["GET", "DELETE"]) expect((await gateway()(`${BASE}/mcp`, { method, headers })).status).toBe(403);
    // the DELETE was refused: the session lives on
    expect((await callWith(EDGE, "GET", `/v1/sessions/${id}`)).status).toBe(200);
  });

  it("no Origin, the Worker's own, loopback ones and MCP_ALLOWED_ORIGINS pass", async () => {
    for (const origin of [undefined, BASE, "http://localhost:6274", "http://127.0.0.1:3000", "https://allowed.example"]) {
      const r = await rpc(initialize(), origin ? { origin } : {});
      expect([origin, r.status]).toEqual([origin, 200]);
    }
    const open = await rpc(initialize(), { origin: "https://anywhere.example" }, { ...EDGE, MCP_ALLOWED_ORIGINS: "*" });
    expect(open.status).toBe(200);
  });
});

describe("MCP gateway: MCP-Protocol-Version on a session", () => {
  it("any supported version is accepted, not only the negotiated one; an unsupported one is 400", async () => {
    const { id } = await connect();
    for (const version of ["2025-03-26", "2025-06-18", "2025-11-25"]) {
      const r = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": version });
      expect([version, r.status, r.messages[0].result?.tools?.length]).toEqual([version, 200, 2]);
    }
    const bad = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/list" }, { "mcp-session-id": id, "mcp-protocol-version": "2024-01-01" });
    expect(bad.status).toBe(400);
  });
});

describe("MCP gateway: progress", () => {
  const op = { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } };

  it("a call with a progressToken gets the server's notifications/progress, directly and through callTool", async () => {
    const { client } = await connect();
    for (const params of [op, { name: "callTool", arguments: op }]) {
      const seen: Array<{ progress: number; total?: number }> = [];
      const r = await client.callTool(params, undefined, { onprogress: (p) => void seen.push(p) });
      expect(textOf(r)).toMatch(/Long running operation completed/);
      expect(seen.map((p) => [p.progress, p.total])).toEqual([
        [1, 3],
        [2, 3],
        [3, 3],
      ]);
    }
  });

  it("without a progressToken, the answer carries no progress", async () => {
    const { id } = await connect();
    const r = await rpc(
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: op },
      { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    );
    expect(r.messages.map((m) => m.method ?? "result")).toEqual(["result"]);
  });
});

describe("MCP gateway: protocol-level bad input", () => {
  const list = { jsonrpc: "2.0", id: 3, method: "tools/list" };
  // [what, body, headers, send the real session id?, status, JSON-RPC code]
  const cases: Array<[string, unknown, Record<string, string>, boolean, number, number]> = [
    ["malformed JSON", "{not json", {}, true, 400, -32700],
    ["not JSON-RPC", { hello: "world" }, {}, true, 400, -32600],
    ["a request without Mcp-Session-Id", list, {}, false, 400, -32000],
    ["an unknown session id", list, { "mcp-session-id": "ses_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }, false, 404, -32001],
    ["a malformed session id", list, { "mcp-session-id": "nope" }, false, 404, -32001],
    ["an unsupported protocol version", list, { "mcp-protocol-version": "1999-01-01" }, true, 400, -32000],
    ["a batch in a protocol without batches", [list, { ...list, id: 4 }], {}, true, 400, -32600],
    [
      "initialize inside a batch",
      [
        {
          jsonrpc: "2.0",
          id: 5,
          method: "initialize",
          params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        },
        list,
      ],
      {},
      true,
      400,
      -32600,
    ],
  ];
  for (const [what, body, headers, withSession, status, code] of cases) {
    it(`${what}: ${status} with JSON-RPC error ${code}, nothing stored`, async () => {
      const { client, id } = await connect();
      await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
      const before = await stored(id);
      const r = await rpc(body, { "mcp-protocol-version": "2025-11-25", ...(withSession ? { "mcp-session-id": id } : {}), ...headers });
      expect(r.status).toBe(status);
      expect(r.messages[0].jsonrpc).toBe("2.0");
      expect(r.messages[0].error.code).toBe(code);
      const after = await stored(id);
      expect({ ...after.state, lastUsedAt: 0 }).toEqual({ ...before.state, lastUsedAt: 0 });
      expect(after.events).toEqual(before.events);
    });
  }

  it("an unknown method is JSON-RPC -32601 Method not found", async () => {
    const { id } = await connect();
    const r = await rpc(
      { jsonrpc: "2.0", id: 6, method: "tools/frobnicate" },
      { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    );
    expect(r.status).toBe(200);
    expect(r.messages[0].error.code).toBe(-32601);
  });

  it("a bad cursor is -32602 Invalid params; tools/list pages with nextCursor", async () => {
    const { client, id } = await connect("deferral=off");
    const r = await rpc(
      { jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor: "zzz" } },
      { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    );
    expect(r.messages[0].error.code).toBe(-32602);
    // 23 tools fit one page of 100: no cursor; the SDK client follows nextCursor when there is one
    expect((await client.listTools()).nextCursor).toBeUndefined();
  });

  it("GET is 405 (no server-initiated stream); no key is 401", async () => {
    const { id } = await connect();
    const get = await gateway()(`${BASE}/mcp`, { headers: { ...AUTH_A, accept: "text/event-stream", "mcp-session-id": id } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, DELETE");
    const anon = await gateway()(`${BASE}/mcp`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("protocol 2025-03-26 negotiates, omits the version header, and may batch", async () => {
    const init = await rpc({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "old", version: "1" } },
    });
    expect(init.messages[0].result.protocolVersion).toBe("2025-03-26");
    const id = init.headers.get("mcp-session-id")!;
    const r = await rpc([list, { ...list, id: 9 }], { "mcp-session-id": id });
    expect(r.status).toBe(200);
    expect(r.messages.map((m) => m.id).sort()).toEqual([3, 9]);
  });

  it("an unsupported requested version is answered with the latest", async () => {
    const init = await rpc({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2030-01-01", capabilities: {}, clientInfo: { name: "future", version: "1" } },
    });
    expect(init.messages[0].result.protocolVersion).toBe("2025-11-25");
  });
});
