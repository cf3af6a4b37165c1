// Code mode on the MCP gateway (`/mcp?code=on`), with the v1 SDK client on 2025-11-25 and the v2
// client on 2026-07-28: runCode is a third stable tool (tools/list the same bytes for the session's
// life); toolSearch answers TypeScript declarations of what it found; one runCode call runs a
// program over three server-everything tools, one of them in a loop of 10, and only its summary
// comes back; every call is audited under the run. Without `code=on` nothing changes.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { AUTH_A, BASE, callWith, EDGE, type Json } from "./helpers.ts";
import { connect, gateway, textOf } from "./mcp-rig.ts";

const PROGRAM = `
const echoed = await tools.everything.echo({ message: "hi" });
let total = 0;
for (let i = 1; i <= 10; i++) total += Number(/\\d+/.exec(await tools.everything["get-sum"]({ a: i, b: 0 }))[0]);
const weather = await tools.mcp__everything__get-structured-content({ location: "Chicago" });
return { echoed, total, hot: weather.temperature > 100 };`.replace(
  "tools.mcp__everything__get-structured-content",
  'tools["mcp__everything__get-structured-content"]',
);

async function modern(query: string) {
  const transport = new ModernTransport(new URL(`${BASE}/mcp?${query}`), { fetch: gateway(EDGE), requestInit: { headers: AUTH_A } });
  const client = new ModernClient({ name: "code-test", version: "2.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(transport);
  return client;
}

type AnyClient = { listTools(): Promise<Json>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<Json> };

async function exercise(client: AnyClient) {
  const before = JSON.stringify(await client.listTools());
  expect(JSON.parse(before).tools.map((t: Json) => t.name)).toEqual(["toolSearch", "callTool", "runCode"]);
  const found = textOf(
    await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo,mcp__everything__get-sum" } }),
  );
  expect(found).toContain("Call them from runCode");
  expect(found).toContain("declare const tools: {\n  everything: {");
  expect(found).toMatch(/"get-sum"\(args[?]?: \{\n\s+a: number;\n\s+b: number;\n\s+\}\): Promise<string>;/);
  expect(found).not.toContain('"inputSchema"');
  const r = await client.callTool({ name: "runCode", arguments: { code: PROGRAM } });
  expect(r.isError).toBeFalsy();
  const answer = JSON.parse(textOf(r));
  expect(answer.value).toEqual({ echoed: "Echo: hi", total: 55, hot: false });
  expect(answer.calls).toHaveLength(12);
  // only the summary: the tools' own results are not in what the model reads
  expect(textOf(r)).not.toContain("temperature");
  expect(JSON.stringify(await client.listTools())).toBe(before);
  return answer.run as string;
}

/** The run's rows, from whichever session object holds them (the tenant's audit, filtered by run). */
async function runRows(run: string): Promise<Json[]> {
  for (let i = 0; i < 50; i++) {
    const rows = (await callWith(EDGE, "GET", `/v1/audit?run=${run}&limit=100`)).body.events as Json[];
    if (rows.length >= 13) return rows;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the rows of ${run} did not reach D1`);
}

describe("runCode on /mcp", () => {
  it("the v1 client (2025-11-25): search shows declarations, one program runs 12 calls, every call audited under the run", async () => {
    const { client } = await connect("code=on");
    const run = await exercise(client as unknown as AnyClient);
    const rows = await runRows(run);
    expect(rows.filter((e) => e.type === "call").every((e) => e.via === "code" && e.outcome === "ok")).toBe(true);
    expect(rows.find((e) => e.type === "run")).toMatchObject({ via: "mcp", outcome: "ok", client: "mcp-test/1.0.0", detail: "12 calls" });
    await client.close();
  });

  it("the v2 client (2026-07-28): the same, on the stable surface", async () => {
    const client = await modern("code=on");
    const run = await exercise(client as unknown as AnyClient);
    const rows = await runRows(run);
    expect(rows.filter((e) => e.type === "call")).toHaveLength(12);
    expect(rows.find((e) => e.type === "run")).toMatchObject({ via: "mcp", client: "code-test/2.0.0" });
    await client.close();
  });

  it("a program's failure is an isError result the model can act on", async () => {
    const { client } = await connect("code=on");
    const r = (await client.callTool({ name: "runCode", arguments: { code: "const x = 1;\nreturn x.nope.deeper;" } })) as Json;
    expect(r.isError).toBe(true);
    expect(JSON.parse(textOf(r)).error).toMatchObject({ kind: "thrown", line: 2, message: expect.stringContaining("TypeError") });
    await client.close();
  });

  it("without code=on the gateway is as it was: no runCode, JSON schemas in search results", async () => {
    const { client } = await connect("");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
    const found = textOf(await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } }));
    expect(found).not.toContain("declare const tools");
    expect(found).toContain('"inputSchema"');
    const r = (await client.callTool({ name: "runCode", arguments: { code: "return 1" } }).catch((e: Error) => e)) as Json;
    expect(String(r?.message ?? textOf(r))).toMatch(/Unknown tool: runCode|no tool/);
    await client.close();
  });
});
