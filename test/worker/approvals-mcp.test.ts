// Approvals on the MCP gateway with the v1 SDK client (2025-11-25): a client that declares
// elicitation is asked in form mode on the call's own stream. Accept runs the call, decline and
// cancel are tool errors saying so, an answer that does not match the form runs nothing; a client
// without the capability gets the approval link as the tool result. What reached the server is
// checked each time (the fixture server's record of calls).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AUTH_A, BASE, callWith, EDGE, fixtureCalls, upstreamOf, type Json } from "./helpers.ts";
import { gateway, textOf } from "./mcp-rig.ts";

const ADD = "mcp__fixture__counter_add";
const VARS = { ...EDGE, POLICY: { ...(env.POLICY as object), approval: { default: { ask: [ADD] } } } };

/** A v1 client on /mcp whose elicitation handler answers `answer` (none: it declares no elicitation). */
async function client(answer?: (message: string) => ElicitResult | Promise<ElicitResult>) {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), { fetch: gateway(VARS), requestInit: { headers: AUTH_A } });
  const c = new Client({ name: "approval-test", version: "1.0.0" }, { capabilities: answer ? { elicitation: { form: {} } } : {} });
  const asked: Json[] = [];
  if (answer)
    c.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params as Json);
      return answer(String(req.params.message));
    });
  await c.connect(transport);
  return { c, asked, id: transport.sessionId! };
}

const add = (c: Client, n: number) => c.callTool({ name: "callTool", arguments: { name: ADD, arguments: { n } } });
const sent = async (id: string) => (await fixtureCalls(await upstreamOf(id))).filter((x) => x.tool === "counter_add").length;
const audit = async (id: string) => (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=100`)).body.events as Json[];

describe("a client with elicitation is asked on the call's stream", () => {
  it("accept: the call runs once; the form names the tool, its server and the arguments; the decision is audited", async () => {
    const { c, asked, id } = await client(() => ({ action: "accept", content: { reason: "looks right" } }));
    const r = await add(c, 5);
    expect(r.isError).toBeFalsy();
    expect(textOf(r as Json)).toMatch(/\b5\b/);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "form", requestedSchema: { type: "object", properties: { reason: { type: "string" } } } });
    expect(asked[0]!.message).toContain(`${ADD} on server fixture, with {"n":5}`);
    expect(await sent(id)).toBe(1);
    const rows = await audit(id);
    const approval = rows.find((e) => e.outcome === "approved")!;
    expect(approval).toMatchObject({
      type: "approval",
      via: "elicitation",
      detail: "approved by MCP client approval-test/1.0.0 (elicitation): looks right",
    });
    expect(rows.find((e) => e.type === "call" && e.outcome === "ok")!.approval).toBe(approval.approval);
    await c.close();
  });

  it("decline: a tool error saying the person denied it; nothing reaches the server", async () => {
    const { c, id } = await client(() => ({ action: "decline" }));
    const r = await add(c, 6);
    expect(r.isError).toBe(true);
    expect(textOf(r as Json)).toContain("denied it; it was not run");
    expect(await upstreamOf(id)).toBeNull();
    expect((await audit(id)).map((e) => e.outcome)).toContain("approval_denied");
    await c.close();
  });

  it("cancel, and an answer that does not match the form: tool errors; nothing runs; the link stays open", async () => {
    for (const answer of [{ action: "cancel" }, { action: "accept", content: { approve: true } }] as ElicitResult[]) {
      const { c, id } = await client(() => answer);
      const r = await add(c, 7);
      expect(r.isError).toBe(true);
      const t = textOf(r as Json);
      expect(t).toMatch(answer.action === "cancel" ? /cancelled the approval/ : /did not match its form \(the form has no field approve\)/);
      expect(t).toMatch(/approval needed: https:\/\/toolsearch\.test\/approve\//);
      expect(await upstreamOf(id)).toBeNull();
      const open = (await callWith(VARS, "GET", "/v1/approvals")).body.approvals as Json[];
      expect(open.some((a) => a.session === id && a.status === "pending")).toBe(true);
      await c.close();
    }
  });
});

describe("a client without elicitation", () => {
  it("gets the approval link as the tool result; after a yes the same call runs", async () => {
    const { c, id } = await client();
    const r = await add(c, 8);
    expect(r.isError).toBe(true);
    const link = /approval needed: (\S+)/.exec(textOf(r as Json))![1]!;
    expect(link).toMatch(/^https:\/\/toolsearch\.test\/approve\/[A-Za-z0-9_-]+\.ap_/);
    const approval = link.split(".").at(-1)!;
    expect((await callWith(VARS, "POST", `/v1/approvals/${approval}`, { approve: true })).status).toBe(200);
    expect((await add(c, 8)).isError).toBeFalsy();
    expect(await sent(id)).toBe(1);
    await c.close();
  });
});

// 2026-07-28: the spec's multi round-trip. The v2 client fulfils `input_required` through its
// elicitation handler and sends the same tools/call again with the answer.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";

async function modern(answer: () => ElicitResult) {
  const transport = new ModernTransport(new URL(`${BASE}/mcp`), { fetch: gateway(VARS), requestInit: { headers: AUTH_A } });
  const c = new ModernClient(
    { name: "approval-v2", version: "2.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const asked: Json[] = [];
  c.setRequestHandler("elicitation/create", async (req) => {
    asked.push(req.params as Json);
    return answer();
  });
  await c.connect(transport);
  return { c, asked };
}

describe("2026-07-28: input_required, then the retry with the answer", () => {
  it("accept runs the call once; decline is the denial; the audit names the client", async () => {
    const { c, asked } = await modern(() => ({ action: "accept", content: {} }));
    const r = await c.callTool({ name: "callTool", arguments: { name: ADD, arguments: { n: 11 } } });
    expect(r.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(String(asked[0]!.message)).toContain(`${ADD} on server fixture, with {"n":11}`);
    // the decision's row reaches D1 with the session's next delivery (about a second)
    const named = async () =>
      ((await callWith(VARS, "GET", "/v1/audit?type=approval&limit=100")).body.events as Json[]).some(
        (e) => e.outcome === "approved" && String(e.detail).includes("MCP client approval-v2/2.0.0"),
      );
    for (let i = 0; i < 50 && !(await named()); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await named()).toBe(true);

    const no = await modern(() => ({ action: "decline" }));
    const d = await no.c.callTool({ name: "callTool", arguments: { name: ADD, arguments: { n: 12 } } });
    expect(d.isError).toBe(true);
    expect(textOf(d as Json)).toContain("denied it; it was not run");
  });

  it("a forged requestState asks again: nothing is decided, nothing runs", async () => {
    const { rpc } = await import("./mcp-rig.ts");
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
    };
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "callTool" };
    const params = { name: "callTool", arguments: { name: ADD, arguments: { n: 13 } }, _meta: meta };
    const first = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/call", params }, headers, VARS);
    const result = first.messages.at(-1)!.result as Json;
    expect(result).toMatchObject({ resultType: "input_required", inputRequests: { approval: { method: "elicitation/create" } } });
    const forged = String(result.requestState).replace(/\.[^.]+$/, ".AAAAAAAAAAAAAAAAAAAAAA");
    const again = await rpc(
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { ...params, requestState: forged, inputResponses: { approval: { action: "accept" } } },
      },
      headers,
      VARS,
    );
    expect(again.messages.at(-1)!.result).toMatchObject({ resultType: "input_required" });
    const open = (await callWith(VARS, "GET", "/v1/approvals")).body.approvals as Json[];
    expect(open.some((a) => a.arguments === '{"n":13}' && a.status === "pending")).toBe(true);
  });
});
