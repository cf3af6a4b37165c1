// The MCP gateway's stable tool surface, the default on /mcp: tools/list is the core tools,
// toolSearch and callTool, the same bytes for every session with the same options and tenant, and
// nothing a call does changes it. A toolSearch result gives each loaded tool's exact name and
// input schema; callTool runs it through the one execution path (argument check, access rules,
// audit via "mcp"); a name not offered is an error result naming the closest offered names. The
// MCP SDK client, the Worker's fetch, real Durable Objects, server-everything behind SERVERS.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AUTH_A, AUTH_B, callWith, EDGE, edgeVars, type Json } from "./helpers.ts";
import { audit, connect, everythingOnly, textOf, toolNames } from "./mcp-rig.ts";

const ALWAYS_LOAD = { "anthropic/alwaysLoad": true };

describe("MCP gateway: the stable surface (default)", () => {
  it("lists toolSearch and callTool, marked alwaysLoad; a search and a call change nothing a client lists", async () => {
    const { client, changed, id } = await connect();
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    expect(client.getInstructions()).toMatch(/^This gateway serves 23 tools from 3 servers through tool search/);
    expect(client.getInstructions()).toContain("run a loaded tool with callTool");
    const first = (await client.listTools()).tools;
    expect(first.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
    for (const t of first) expect(t._meta).toEqual(ALWAYS_LOAD);
    expect(first[0]!.description).toContain("mcp__everything__echo"); // the deferred listing
    // the listing says how loaded tools are run here: nothing joins the tools list
    expect(first[0]!.description).toContain(
      "Loaded tools stay loaded; run one with callTool by the exact name the toolSearch result gives.",
    );
    expect(first[0]!.description).not.toContain("call them directly");

    const found = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    const text = textOf(found);
    expect(text).toContain("Loaded 1 tool");
    // the exact name for callTool, a hint for prefixed clients, and the input schema as compact JSON
    expect(text).toContain('callTool({"name":"mcp__everything__echo","arguments":{...}})');
    expect(text).toContain("mcp__toolsearch__callTool");
    expect(text).toMatch(/^\{"name":"mcp__everything__echo","inputSchema":\{.*"message".*\}\}$/m);

    const echo = await client.callTool({
      name: "callTool",
      arguments: { name: "mcp__everything__echo", arguments: { message: "via callTool" } },
    });
    expect(echo).toEqual({ content: [{ type: "text", text: "Echo: via callTool" }] });
    // a direct tools/call of an offered tool keeps working
    const direct = await client.callTool({ name: "mcp__everything__echo", arguments: { message: "direct" } });
    expect(textOf(direct)).toBe("Echo: direct");

    expect(changed).toEqual([]);
    expect(JSON.stringify((await client.listTools()).tools)).toBe(JSON.stringify(first));
    const calls = (await audit(id)).filter((e) => e.type === "call");
    expect(calls.map((e) => [e.tool, e.outcome, e.via])).toEqual([
      ["mcp__everything__echo", "ok", "mcp"],
      ["mcp__everything__echo", "ok", "mcp"],
    ]);
  });

  it("callTool runs any offered tool without a search first, checking its arguments against the tool's schema", async () => {
    const { client, id } = await connect();
    const bad = await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__get-sum", arguments: { a: "one" } } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/invalid arguments for mcp__everything__get-sum: .*arguments\/a/);
    const sum = await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } } });
    expect(textOf(sum)).toBe("The sum of 2 and 3 is 5.");
    // the arguments as a JSON string, and the name as a prefixed client shows it
    const prefixed = await client.callTool({
      name: "callTool",
      arguments: { name: "mcp__toolsearch__mcp__everything__get-sum", arguments: '{"a":1,"b":1}' },
    });
    expect(textOf(prefixed)).toBe("The sum of 1 and 1 is 2.");
    const noName = await client.callTool({ name: "callTool", arguments: { arguments: {} } });
    expect(noName.isError).toBe(true);
    expect(textOf(noName)).toMatch(/^Error: callTool arguments: .*name/);
    const outcomes = (await audit(id)).filter((e) => e.type === "call").map((e) => e.outcome);
    expect(outcomes).toEqual(["ok", "ok", "invalid_arguments"]); // newest first
  });

  it("a name the gateway does not offer is an error result naming the closest offered names", async () => {
    const { client } = await connect("", AUTH_A, everythingOnly());
    const typo = await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__ecko", arguments: {} } });
    expect(typo.isError).toBe(true);
    expect(textOf(typo)).toMatch(
      /^Error: this gateway offers no tool named "mcp__everything__ecko"\. Closest offered names: .*mcp__everything__echo/,
    );
    // a tool of a server the gateway cannot reach: not offered, and no name of that server is suggested
    const unreachable = await client.callTool({ name: "callTool", arguments: { name: "mcp__fixture__counter_add", arguments: { n: 1 } } });
    expect(unreachable.isError).toBe(true);
    expect(textOf(unreachable)).toMatch(/offers no tool named "mcp__fixture__counter_add"/);
    expect(textOf(unreachable)).not.toMatch(/Closest offered names: [^.]*mcp__fixture__/);
  });

  it("the tenant's access rules apply to callTool, and the denial is audited", async () => {
    const vars = edgeVars({ tenants: { "tenant-a": { deny: ["mcp__everything__echo"] } } });
    const { client, id } = await connect("", AUTH_A, vars);
    const r = await client.callTool({ name: "callTool", arguments: { name: "mcp__everything__echo", arguments: { message: "x" } } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/offers no tool named "mcp__everything__echo"/);
    const denials = (await callWith(vars, "GET", `/v1/sessions/${id}/audit?limit=100`)).body.events.filter(
      (e: Json) => e.type === "denial",
    );
    expect(denials.map((e: Json) => e.tool)).toEqual(["mcp__everything__echo"]);
  });

  it("tools/list is byte-identical across sessions with the same options and tenant, before and after calls", async () => {
    const a = await connect();
    const b = await connect();
    const c = await connect("", AUTH_B);
    const listA = JSON.stringify((await a.client.listTools()).tools);
    await b.client.callTool({ name: "toolSearch", arguments: { query: "add two numbers" } });
    await b.client.callTool({ name: "callTool", arguments: { name: "mcp__everything__get-sum", arguments: { a: 1, b: 2 } } });
    expect(JSON.stringify((await b.client.listTools()).tools)).toBe(listA);
    expect(JSON.stringify((await c.client.listTools()).tools)).toBe(listA); // tenant B has the same rules here
    expect(a.client.getInstructions()).toBe(b.client.getInstructions());
  });

  it("the tools a session keeps loaded (a profile's core tools) are listed first, marked alwaysLoad, and not in the listing", async () => {
    const policy = { ...(env.POLICY as object), profiles: { default: {}, ops: { coreTools: ["mcp__everything__get-sum"] } } };
    const vars = { ...EDGE, POLICY: policy };
    const { client } = await connect("profile=ops", AUTH_A, vars);
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => [t.name, t._meta])).toEqual([
      ["mcp__everything__get-sum", ALWAYS_LOAD],
      ["toolSearch", ALWAYS_LOAD],
      ["callTool", ALWAYS_LOAD],
    ]);
    expect(tools[0]!.inputSchema.properties).toHaveProperty("a");
    expect(tools[1]!.description).toContain("mcp__everything__echo");
    expect(tools[1]!.description).not.toContain("mcp__everything__get-sum");
    // deferral off: every tool is listed and none is marked (a client's own tool search may defer them)
    const off = (await (await connect("deferral=off", AUTH_A, vars)).client.listTools()).tools;
    expect(off).toHaveLength(23);
    expect(off.filter((t) => t._meta)).toEqual([]);
  });

  it("deferral is on by default on /mcp; ?deferral=off lists every tool, no gateway tools", async () => {
    const { id } = await connect();
    expect((await callWith(EDGE, "GET", `/v1/sessions/${id}`)).body).toMatchObject({ mode: "deferred", activation: "proxy" });
    const off = await connect("deferral=off");
    const names = await toolNames(off.client);
    expect(names).toHaveLength(23);
    expect(names).not.toContain("callTool");
    expect(names).not.toContain("toolSearch");
  });
});
