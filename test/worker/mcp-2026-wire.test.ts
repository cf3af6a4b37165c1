// MCP 2026-07-28 on the wire, as raw HTTP: server/discover and tools/list carry resultType, ttlMs and
// cacheScope; the Mcp-Method / Mcp-Name / MCP-Protocol-Version headers must match the body
// (HeaderMismatch -32020); an unknown version is UnsupportedProtocolVersion -32022 naming every
// version this URL serves; a request without `_meta` is refused; there is no ping, no GET stream
// and no DELETE; subscriptions/listen is acknowledged; no session id is minted or echoed; the
// Origin check applies as on the older versions. The Worker's fetch, real Durable Objects.
import { describe, expect, it } from "vitest";
import { gateway, initialize, rpc } from "./mcp-rig.ts";
import { AUTH_A, BASE, type Json } from "./helpers.ts";

const V = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": V,
  "io.modelcontextprotocol/clientInfo": { name: "raw-2026", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const req = (method: string, params: Json = {}, id = 1) => ({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } });
const headers = (method: string, name?: string) => ({
  "mcp-protocol-version": V,
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name }),
});
const errorOf = (r: { messages: Json[] }) => r.messages[0]!.error;

describe("MCP 2026-07-28 on the wire", () => {
  it("server/discover and tools/list: resultType, cache hints, serverInfo; the same bytes twice; no session id", async () => {
    const d = await rpc(req("server/discover"), headers("server/discover"));
    expect(d.status).toBe(200);
    expect(d.headers.get("mcp-session-id")).toBeNull();
    expect(d.messages[0]!.result).toMatchObject({
      supportedVersions: [V],
      capabilities: { tools: { listChanged: false } },
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "toolsearch" } },
    });
    expect(d.messages[0]!.result.instructions).toMatch(/^This gateway serves 23 tools/);
    const a = await rpc(req("tools/list"), headers("tools/list"));
    const b = await rpc(req("tools/list", {}, 2), { ...headers("tools/list"), "mcp-session-id": "ses_whatever" });
    expect(a.messages[0]!.result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "private" });
    expect(JSON.stringify(b.messages[0]!.result)).toBe(JSON.stringify(a.messages[0]!.result));
    // an Mcp-Session-Id on a 2026 request is ignored, never echoed
    expect(b.headers.get("mcp-session-id")).toBeNull();
  });

  it("headers that disagree with the body, or are missing, are HeaderMismatch -32020 with 400", async () => {
    const call = req("tools/call", { name: "callTool", arguments: { name: "mcp__everything__echo", arguments: { message: "x" } } });
    const cases: Array<[string, Record<string, string>, Json, RegExp]> = [
      ["Mcp-Method differs", headers("tools/call"), req("tools/list"), /Mcp-Method header names tools\/call/],
      ["Mcp-Method missing", { "mcp-protocol-version": V }, req("tools/list"), /required Mcp-Method header is absent/],
      ["Mcp-Name differs", headers("tools/call", "toolSearch"), call, /Mcp-Name header names "toolSearch"/],
      ["Mcp-Name missing", headers("tools/call"), call, /required Mcp-Name header is absent/],
      ["version differs", { ...headers("tools/list"), "mcp-protocol-version": "2025-11-25" }, req("tools/list"), /protocol version/],
    ];
    for (const [what, h, body, message] of cases) {
      const r = await rpc(body, h);
      expect(r.status, what).toBe(400);
      expect(errorOf(r).code, what).toBe(-32020);
      expect(errorOf(r).message, what).toMatch(message);
    }
    // the same call with matching headers runs
    const ok = await rpc(call, headers("tools/call", "callTool"));
    expect(ok.status).toBe(200);
    expect(ok.messages.at(-1)!.result.content).toEqual([{ type: "text", text: "Echo: x" }]);
    expect(ok.messages.at(-1)!.result.resultType).toBe("complete");
  });

  it("an unknown version is -32022 naming every version this URL serves; a 2026 header without _meta is -32602", async () => {
    const meta = { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
    const r = await rpc(
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } },
      {
        "mcp-protocol-version": "2099-01-01",
        "mcp-method": "tools/list",
      },
    );
    expect(r.status).toBe(400);
    expect(errorOf(r)).toMatchObject({ code: -32022, data: { requested: "2099-01-01" } });
    expect(errorOf(r).data.supported).toEqual([V, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"]);
    const bare = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }, headers("tools/list"));
    expect(bare.status).toBe(400);
    expect(errorOf(bare).code).toBe(-32602);
    expect(errorOf(bare).message).toMatch(/missing the required per-request envelope/);
  });

  it("no ping (-32601, 404), no GET stream and no DELETE (405)", async () => {
    const ping = await rpc(req("ping"), headers("ping"));
    expect(ping.status).toBe(404);
    expect(errorOf(ping).code).toBe(-32601);
    for (const method of ["GET", "DELETE"]) {
      const res = await gateway()(`${BASE}/mcp`, {
        method,
        headers: { ...AUTH_A, "mcp-protocol-version": V, accept: "text/event-stream" },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as Json).error.code).toBe(-32000);
    }
  });

  it("subscriptions/listen is acknowledged on its stream: tools/list never changes, so no type is granted", async () => {
    const r = await rpc(req("subscriptions/listen", { notifications: { toolsListChanged: true } }), headers("subscriptions/listen"));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(r.messages[0]).toMatchObject({ method: "notifications/subscriptions/acknowledged", params: { notifications: {} } });
    expect(r.messages.at(-1)!.result.resultType).toBe("complete");
  });

  it("the Origin check applies to 2026 requests; initialize on the same URL still opens a 2025 session", async () => {
    const evil = await rpc(req("tools/list"), { ...headers("tools/list"), origin: "https://evil.example" });
    expect(evil.status).toBe(403);
    const init = await rpc(initialize("2025-11-25"));
    expect(init.status).toBe(200);
    expect(init.headers.get("mcp-session-id")).toMatch(/^ses_/);
    expect(init.messages[0]!.result.protocolVersion).toBe("2025-11-25");
  });
});
