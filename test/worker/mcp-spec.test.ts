// The MCP gateway's transport rules from the 2025-11-25 spec and the official conformance suite:
// a present Origin that is not allowed gets 403 before anything is read or stored (the Worker's
// own origin, loopback ones and MCP_ALLOWED_ORIGINS pass); any supported MCP-Protocol-Version
// header is accepted on a session; and a call that carries a progressToken gets the upstream
// server's notifications/progress (server-everything's long-running operation) on its stream.
import { describe, expect, it } from "vitest";
import { BASE } from "./helpers.ts";
import { connect, gateway, initialize, rpc, textOf } from "./mcp-rig.ts";
import { AUTH_A, callWith, EDGE } from "./helpers.ts";

describe("MCP gateway: Origin", () => {
  it("a disallowed Origin gets 403 with a JSON-RPC error on every method, and no session is made", async () => {
    const { id } = await connect();
    const init = await rpc(initialize(), { origin: "https://evil.example" });
    expect(init.status).toBe(403);
    expect(init.messages[0].error).toMatchObject({
      code: -32000,
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
