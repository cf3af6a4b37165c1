// Where programs cannot run: the QuickJS WebAssembly module made to fail to instantiate (as a
// runtime without WebAssembly, or a module that did not load, would), inside workerd. /healthz
// says why; a session that asks for code mode is created without it, on REST, the MCP gateway and
// chat alike (no runCode in any tools list), and POST /code answers 503 with the reason.
import { describe, expect, it, vi } from "vitest";
import { callWith, EDGE, edgeSession, type Json } from "./helpers.ts";

// the setup files already loaded the Worker's modules: this file gets its own copies, with the mock
vi.hoisted(() => vi.resetModules());
// the one way the Worker instantiates the interpreter (sandbox.ts), failing as a module that is not WebAssembly does
vi.mock("../../worker/code/sandbox.ts", async (original) => ({
  ...(await original<typeof import("../../worker/code/sandbox.ts")>()),
  loadQuickJS: async () => {
    throw new WebAssembly.CompileError("WebAssembly.Module(): expected magic word 00 61 73 6d");
  },
}));

describe("code mode where the interpreter cannot load", () => {
  it("/healthz says code mode cannot run and why; the rest of the deployment is ok", async () => {
    const r = await callWith(EDGE, "GET", "/healthz", undefined, {});
    expect(r.status).toBe(200);
    expect(r.body.ok).toBe(true);
    expect(r.body.code).toEqual({
      available: false,
      engine: expect.stringMatching(/^quickjs-emscripten/),
      reason: "the QuickJS WebAssembly module did not run: WebAssembly.Module(): expected magic word 00 61 73 6d",
    });
  });

  it('a session asking for "code": "on" gets no runCode, and POST /code is a 503 naming the reason', async () => {
    const s = await edgeSession(undefined, undefined, { code: "on" });
    expect((s.prompt.tools as Json[]).map((t) => t.function.name)).toEqual(["toolSearch"]);
    const prompt = await callWith(EDGE, "GET", `/v1/sessions/${s.id}/prompt`);
    expect(prompt.body.tools.map((t: Json) => t.function.name)).toEqual(["toolSearch"]);
    const r = await callWith(EDGE, "POST", `/v1/sessions/${s.id}/code`, { code: "return 1" });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toBe(
      "code mode cannot run here (the QuickJS WebAssembly module did not run: WebAssembly.Module(): expected magic word 00 61 73 6d); GET /healthz says so too",
    );
  });

  it("/mcp?code=on lists toolSearch and callTool only", async () => {
    const init = await callWith(
      { ...EDGE },
      "POST",
      "/mcp?code=on",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      },
      { accept: "application/json, text/event-stream" },
    );
    expect(init.status).toBe(200);
    const sid = init.headers.get("mcp-session-id")!;
    const h = { accept: "application/json, text/event-stream", "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
    await callWith(EDGE, "POST", "/mcp?code=on", { jsonrpc: "2.0", method: "notifications/initialized" }, h);
    const list = await callWith(EDGE, "POST", "/mcp?code=on", { jsonrpc: "2.0", id: 2, method: "tools/list" }, h);
    const body = JSON.parse(
      list.text
        .split("\n")
        .filter((l: string) => l.startsWith("data: "))
        .pop()!
        .slice(6),
    );
    expect(body.result.tools.map((t: Json) => t.name)).toEqual(["toolSearch", "callTool"]);
  });
});
