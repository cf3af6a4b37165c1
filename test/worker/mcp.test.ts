// The MCP gateway inside workerd: the MCP SDK client (StreamableHTTPClientTransport) talks to the
// Worker's fetch, with real Durable Objects, on the `edge` catalog whose servers (server-everything,
// the stateful fixture) edge-setup.ts runs and SERVERS names. The dynamic form's story
// (`?activation=inject`: initialize, list, search, list_changed, re-list, a call through to
// server-everything, DELETE; the stable default is mcp-stable.test.ts),
// byte-stable instructions and listing, what the gateway cannot run or the tenant may not see,
// tenants, and a Durable Object restart (protocol-level bad input: mcp-spec.test.ts).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { SessionDO } from "../../worker/session/session-do.ts";
import { AUTH_A, AUTH_B, callWith, EDGE, fixture, fixtureCalls, sessionObject, upstreamOf } from "./helpers.ts";
import { audit, connect, everythingOnly, gateway, rpc, textOf, toolNames } from "./mcp-rig.ts";

describe("MCP gateway: the client's story", () => {
  it("activation=inject: initialize, list, search with list_changed, re-list, a call through to server-everything, DELETE", async () => {
    const { client, transport, changed, id } = await connect("activation=inject");
    expect(id).toMatch(/^ses_/);
    const instructions = client.getInstructions()!;
    expect(instructions).toMatch(/^This gateway serves 23 tools from 3 servers through tool search/);
    expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);

    const first = await client.listTools();
    expect(first.tools.map((t) => t.name)).toEqual(["toolSearch", "callTool"]);
    const searchTool = first.tools[0]!;
    // the deferred listing is said once: in toolSearch's description, which the instructions point to
    expect(searchTool.description).toContain("mcp__everything__echo");
    expect(searchTool.description).toContain("Loaded tools join your tools list once your client re-lists it");
    expect(instructions).toContain("toolSearch's description lists them");
    expect(instructions).not.toContain("mcp__everything__");

    const r = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo,mcp__everything__get-sum" } });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain("Loaded 2 tools");
    expect(textOf(r)).toContain('callTool({"name":"mcp__everything__echo","arguments":{...}})'); // for a client that re-lists late
    expect(changed.length).toBe(1);

    const second = await client.listTools();
    expect(second.tools.map((t) => t.name)).toEqual(["toolSearch", "callTool", "mcp__everything__echo", "mcp__everything__get-sum"]);
    // byte-stable: the listing never changes for the session, and loaded tools join at the end
    expect(JSON.stringify(second.tools.slice(0, 2))).toBe(JSON.stringify(first.tools));
    expect(second.tools[2]!.annotations).toMatchObject({ readOnlyHint: true });

    // the call runs at the edge, in the session's kept-alive upstream MCP session
    const echo = await client.callTool({ name: "mcp__everything__echo", arguments: { message: "through the gateway" } });
    expect(echo).toEqual({ content: [{ type: "text", text: "Echo: through the gateway" }] });
    expect(changed.length).toBe(1); // nothing new was loaded

    // asking again loads nothing and sends no notification
    const again = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    expect(textOf(again)).toContain("Already loaded");
    expect(changed.length).toBe(1);

    // the same session over /v1, as the page and REST clients see it, with its audit trail
    const rest = await callWith(EDGE, "GET", `/v1/sessions/${id}`);
    expect(rest.body).toMatchObject({ activations: ["mcp__everything__echo", "mcp__everything__get-sum"], execution: "edge" });
    const events = await audit(id);
    expect(events.map((e) => [e.type, e.tool, e.outcome, e.via])).toContainEqual(["call", "mcp__everything__echo", "ok", "mcp"]);
    expect(events.filter((e) => e.type === "search").every((e) => e.via === "mcp")).toBe(true);

    await transport.terminateSession();
    expect((await callWith(EDGE, "GET", `/v1/sessions/${id}`)).status).toBe(404);
    await client.close();
  });

  it("activation=inject: a deferred tool called directly is loaded (list_changed), its arguments checked, then run", async () => {
    const { client, changed } = await connect("activation=inject");
    const bad = await client.callTool({ name: "mcp__everything__get-sum", arguments: { a: "one" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/invalid arguments for mcp__everything__get-sum/);
    expect(changed.length).toBe(1);
    expect(await toolNames(client)).toEqual(["toolSearch", "callTool", "mcp__everything__get-sum"]);
    const sum = await client.callTool({ name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } });
    expect(textOf(sum)).toBe("The sum of 2 and 3 is 5.");
    expect(changed.length).toBe(1);
  });

  it("keeps one upstream MCP session across calls (server state lives on), and DELETE closes it", async () => {
    const { client, transport, id } = await connect("deferral=off");
    await client.callTool({ name: "mcp__fixture__counter_add", arguments: { n: 2 } });
    await client.callTool({ name: "mcp__fixture__counter_add", arguments: { n: 3 } });
    expect(textOf(await client.callTool({ name: "mcp__fixture__counter_get", arguments: {} }))).toContain("5");
    const upstream = await upstreamOf(id);
    expect(upstream).toBeTruthy();
    expect((await fixtureCalls(upstream)).map((c) => c.tool)).toEqual(["counter_add", "counter_add", "counter_get"]);
    await transport.terminateSession();
    expect((await fixture("stats")).deletes).toContain(upstream);
  });

  it("keywords, +word and mcp__server work as on /v1; a bad query is an isError result", async () => {
    const { client } = await connect();
    const kw = await client.callTool({ name: "toolSearch", arguments: { query: "add two numbers sum", limit: 1 } });
    expect(textOf(kw)).toMatch(/mcp__(everything|legacy)__get-sum/);
    const browse = await client.callTool({ name: "toolSearch", arguments: { query: "mcp__fixture" } });
    expect(textOf(browse)).toContain("mcp__fixture__counter_add");
    const bad = await client.callTool({ name: "toolSearch", arguments: { query: "" } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/query is empty/);
  });

  it("two sessions with the same options get byte-identical instructions and listing", async () => {
    const a = await connect();
    const b = await connect();
    expect(a.id).not.toBe(b.id);
    expect(a.client.getInstructions()).toBe(b.client.getInstructions());
    expect(JSON.stringify((await a.client.listTools()).tools)).toBe(JSON.stringify((await b.client.listTools()).tools));
  });

  it("deferral=off lists every tool and no toolSearch", async () => {
    const { client } = await connect("deferral=off");
    const names = await toolNames(client);
    expect(names).not.toContain("toolSearch");
    expect(names).toHaveLength(23);
    expect(client.getInstructions()).toMatch(/every one is in tools\/list/);
  });

  it("session options from headers, checked by the same rules as POST /v1/sessions", async () => {
    const { id } = await connect("", {
      ...AUTH_A,
      "x-toolsearch-model": "gpt-4o",
      "x-toolsearch-deferral": "on",
      "x-toolsearch-listing": "grouped",
    });
    const s = (await callWith(EDGE, "GET", `/v1/sessions/${id}`)).body;
    expect([s.model, s.mode, s.listing]).toEqual(["gpt-4o", "deferred", "grouped"]);
    const bad = await rpc(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      { "x-toolsearch-deferral": "sometimes" },
    );
    expect(bad.status).toBe(400);
    expect(bad.messages[0].error.message).toMatch(/deferral/);
  });
});

describe("MCP gateway: what it offers", () => {
  it("tools of servers it cannot reach are not offered, and the instructions say so", async () => {
    const vars = everythingOnly();
    const { client, changed } = await connect("deferral=on", AUTH_A, vars);
    const instructions = client.getInstructions()!;
    expect(instructions).toMatch(/^This gateway serves 13 tools from 1 server through/);
    expect(instructions).toContain("cannot reach their servers (a client runs them itself): fixture (8), legacy (2)");
    expect(instructions).not.toContain("mcp__fixture__whoami");
    const found = await client.callTool({ name: "toolSearch", arguments: { query: "counter add", limit: 5 } });
    expect(textOf(found)).not.toContain("mcp__fixture__");
    const sel = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__fixture__whoami" } });
    expect(textOf(sel)).toContain("mcp__fixture__whoami is not available in this session");
    await expect(client.callTool({ name: "mcp__fixture__whoami", arguments: {} })).rejects.toThrow(/Unknown tool: mcp__fixture__whoami/);
    expect(changed.length).toBe(0);
    expect(await toolNames(client)).toEqual(["toolSearch", "callTool"]);
  });

  it("with no reachable server it offers nothing, and says why", async () => {
    const { client } = await connect("deferral=on", AUTH_A, { ...EDGE, SERVERS: "{}" });
    expect(client.getInstructions()).toMatch(/^This gateway offers no tools: it reaches none of its catalog's servers/);
    expect(client.getInstructions()).toContain("everything (13), fixture (8), legacy (2)");
  });

  it("the tenant's access rules apply: a denied tool is in no listing, search or call", async () => {
    const vars = {
      ...EDGE,
      POLICY: {
        ...(env.POLICY as object),
        access: { tenants: { "tenant-a": { deny: ["mcp__everything__echo"], denyAnnotations: { destructiveHint: true } } } },
      },
    };
    const { client, id } = await connect("deferral=on", AUTH_A, vars);
    expect(client.getInstructions()).not.toContain("mcp__everything__echo");
    expect(client.getInstructions()).not.toContain("mcp__fixture__wipe_all");
    const sel = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    expect(textOf(sel)).toContain("is not available in this session");
    await expect(client.callTool({ name: "mcp__fixture__wipe_all", arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(
      (await audit(id))
        .filter((e) => e.type === "denial")
        .map((e) => e.tool)
        .sort(),
    ).toEqual(["mcp__everything__echo", "mcp__fixture__wipe_all"]);
  });
});

describe("MCP gateway: tenants and restarts", () => {
  it("another tenant's client cannot use the session", async () => {
    const { id } = await connect();
    const r = await rpc(
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { ...AUTH_B, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    );
    expect(r.status).toBe(404);
    expect(r.messages[0].error.code).toBe(-32001);
  });

  it("the session survives its Durable Object restarting", async () => {
    const { client, id } = await connect("activation=inject");
    await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__get-sum" } });
    await runInDurableObject(sessionObject(id), (_o: SessionDO, state) => state.abort("restart for the test")).catch(() => {});
    expect(await toolNames(client)).toEqual(["toolSearch", "callTool", "mcp__everything__get-sum"]);
    expect(textOf(await client.callTool({ name: "mcp__everything__get-sum", arguments: { a: 1, b: 1 } }))).toBe("The sum of 1 and 1 is 2.");
  });

  it("a session that ended behind this isolate's cache (another isolate's DELETE, expiry): a call answers -32001", async () => {
    const { id } = await connect();
    // the object removes the session; this isolate still holds its frozen fields
    await runInDurableObject(sessionObject(id), (o: SessionDO) => o.remove());
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    const call = { name: "callTool", arguments: { name: "mcp__everything__echo", arguments: { message: "x" } } };
    const r = await rpc({ jsonrpc: "2.0", id: 3, method: "tools/call", params: call }, headers);
    expect(r.messages.at(-1)!.error).toMatchObject({
      code: -32001,
      message: expect.stringMatching(/Session not found: session ses_.* does not exist \(initialize again\)$/),
    });
  });
});
