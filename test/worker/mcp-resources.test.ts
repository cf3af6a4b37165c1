// Upstream resources and prompts through /mcp: a resource link that server-everything's
// get-resource-links tool returns is read through the gateway with the v1 SDK client (2025-11-25
// session) and the v2 client (2026-07-28, stateless); resources, templates and prompts are listed
// under server-prefixed names and a prompt is fetched; a URI the session was never handed, another
// tenant's, or one of a server the tenant's rules deny is refused (-32002) and audited. A server with
// one denied tool serves no resources or prompts unless `allow` names the server (R2-L7), under the
// rules frozen and the rules deployed now. Real Durable Objects, the Worker's fetch, server-everything started by edge-setup.ts.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { AUTH_A, AUTH_B, BASE, edgeVars, type Json } from "./helpers.ts";
import { audit, connect, everythingOnly, gateway, rpc } from "./mcp-rig.ts";

const links = (r: Json): Json[] => (r.content as Json[]).filter((c) => c.type === "resource_link");

describe("MCP gateway: resources and prompts (2025-11-25, v1 client)", () => {
  it("reads a tool's resource link, lists and fetches prompts, lists resources and templates; audited", async () => {
    const { client, id } = await connect("", AUTH_A, everythingOnly());
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
    const got = await client.callTool({
      name: "callTool",
      arguments: { name: "mcp__everything__get-resource-links", arguments: { count: 2 } },
    });
    expect(links(got).map((l) => l.uri)).toEqual(["demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"]);
    const uri = "demo://resource/dynamic/text/2";
    const read = await client.readResource({ uri });
    expect(read.contents[0]).toMatchObject({
      uri,
      mimeType: "text/plain",
      text: expect.stringMatching(/^Resource 2: This is a plaintext resource/),
    });

    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(["mcp__everything__simple-prompt", "mcp__everything__args-prompt"]));
    const prompt = await client.getPrompt({ name: "mcp__everything__args-prompt", arguments: { city: "Paris" } });
    expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "What's weather in Paris?" });

    const resources = (await client.listResources()).resources;
    const doc = resources.find((r) => r.uri === "demo://resource/static/document/features.md")!;
    expect(doc.name).toBe("mcp__everything__features.md");
    expect((await client.readResource({ uri: doc.uri })).contents[0]).toMatchObject({
      mimeType: "text/markdown",
      text: expect.stringContaining("#"),
    });
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("demo://resource/dynamic/text/{resourceId}");

    // never handed to this session: neither in a tool result nor in a server's resources/list
    await expect(client.readResource({ uri: "demo://resource/dynamic/text/3" })).rejects.toMatchObject({ code: -32002 });
    await expect(client.getPrompt({ name: "simple-prompt" })).rejects.toMatchObject({ code: -32602 });

    const rows = (await audit(id)).filter((e) => e.type !== "activation" && e.type !== "call");
    expect(rows.map((e) => [e.type, e.tool, e.server, e.outcome]).reverse()).toEqual([
      ["resource", uri, "everything", "ok"],
      ["prompt", "mcp__everything__args-prompt", "everything", "ok"],
      ["resource", doc.uri, "everything", "ok"],
      ["denial", "demo://resource/dynamic/text/3", null, "denied"],
      ["denial", "simple-prompt", null, "denied"],
    ]);
  });

  it("another tenant, and a server the tenant's rules deny, read nothing", async () => {
    const a = await connect("", AUTH_A, everythingOnly());
    const got = await a.client.callTool({ name: "mcp__everything__get-resource-links", arguments: { count: 2 } });
    const uri = links(got)[1]!.uri as string;
    expect((await a.client.readResource({ uri })).contents).toHaveLength(1);
    // tenant B, same deployment: its session was never handed the URI
    const b = await connect("", AUTH_B, everythingOnly());
    await expect(b.client.readResource({ uri })).rejects.toMatchObject({ code: -32002, message: expect.stringContaining(uri) });
    // the tenant's rules deny server-everything entirely: nothing to serve, nothing advertised
    const denied = { ...everythingOnly(), POLICY: edgeVars({ tenants: { "tenant-a": { deny: ["server:everything"] } } }).POLICY };
    const d = await connect("", AUTH_A, denied);
    expect(d.client.getServerCapabilities()?.resources).toBeUndefined();
    await expect(d.client.readResource({ uri })).rejects.toMatchObject({ code: -32601 });
    await expect(d.client.listPrompts()).rejects.toMatchObject({ code: -32601 });
  });
});

describe("MCP gateway: resources and prompts (2026-07-28, v2 client)", () => {
  it("reads a tool's resource link and fetches a prompt, statelessly; an unknown URI is refused", async () => {
    const transport = new ModernTransport(new URL(`${BASE}/mcp`), { fetch: gateway(everythingOnly()), requestInit: { headers: AUTH_A } });
    const client = new ModernClient({ name: "v2-resources", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(transport);
    expect(client.getServerCapabilities()).toMatchObject({ resources: {}, prompts: {} });
    const got = await client.callTool({ name: "mcp__everything__get-resource-links", arguments: { count: 4 } });
    const uri = links(got).find((l) => l.uri.endsWith("/text/4"))!.uri as string;
    const read = await client.readResource({ uri });
    expect(read.contents[0]!).toMatchObject({ uri, text: expect.stringMatching(/^Resource 4: /) });
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toContain("mcp__everything__simple-prompt");
    const prompt = await client.getPrompt({ name: "mcp__everything__simple-prompt" });
    expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "This is a simple prompt without arguments." });
    // this revision's code for "Resource not found" is -32602 (the v2 SDK maps -32002 to it)
    await expect(client.readResource({ uri: "demo://resource/dynamic/text/9" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Resource not found: demo://resource/dynamic/text/9"),
    });
  });
});

describe("a server with a denied tool keeps its resources and prompts only where allow names it (R2-L7)", () => {
  const DENIED = "mcp__everything__get-env";
  const withRules = (layer: Json) => ({ ...everythingOnly(), POLICY: edgeVars({ tenants: { "tenant-a": layer } }).POLICY });
  const linkOf = async (client: Awaited<ReturnType<typeof connect>>["client"]) => {
    const got = await client.callTool({
      name: "callTool",
      arguments: { name: "mcp__everything__get-resource-links", arguments: { count: 2 } },
    });
    return links(got)[1]!.uri as string;
  };

  it("one denied tool: its other tools run and hand out links, but no read, prompt or list item; refused as not available, audited with the rule", async () => {
    const { client, id } = await connect("", AUTH_A, withRules({ deny: [DENIED] }));
    const uri = await linkOf(client);
    await expect(client.readResource({ uri })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining(`Resource ${uri} is not available in this session (access policy)`),
    });
    await expect(client.getPrompt({ name: "mcp__everything__simple-prompt" })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Prompt mcp__everything__simple-prompt is not available in this session (access policy)"),
    });
    expect((await client.listResources()).resources).toEqual([]);
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect((await client.listPrompts()).prompts).toEqual([]);
    const why = `server everything serves no resources or prompts here: tool ${DENIED} of server everything is denied (denied by tenant tenant-a (deny: ${DENIED})) and no server: pattern in allow names everything`;
    const rows = (await audit(id)).filter((e) => e.type === "denial").reverse();
    expect(rows.map((e) => [e.tool, e.server, e.detail])).toEqual([
      [uri, "everything", why],
      ["mcp__everything__simple-prompt", "everything", why],
    ]);
  });

  it("allow naming the server (server:<glob>) opens them, the tool still denied; a per-tool allow that leaves tools out closes them", async () => {
    const open = await connect("", AUTH_A, withRules({ allow: ["server:every*"], deny: [DENIED] }));
    const uri = await linkOf(open.client);
    expect((await open.client.readResource({ uri })).contents[0]).toMatchObject({ uri, text: expect.stringMatching(/^Resource 2: /) });
    expect((await open.client.getPrompt({ name: "mcp__everything__simple-prompt" })).messages).toHaveLength(1);
    const denied = await open.client.callTool({ name: "callTool", arguments: { name: DENIED, arguments: {} } });
    expect(denied).toMatchObject({ isError: true });
    // allow by tool name: the server's other tools are not allowed, so neither is its data
    const some = await connect("", AUTH_A, withRules({ allow: ["mcp__everything__get-resource-links"] }));
    const handed = await linkOf(some.client);
    await expect(some.client.readResource({ uri: handed })).rejects.toMatchObject({ code: -32002 });
    expect((await some.client.listPrompts()).prompts).toEqual([]);
  });

  it("a per-tool deny deployed after the session started closes them at once (the rules now), and lifting it reopens them", async () => {
    const { client, id } = await connect("", AUTH_A, everythingOnly());
    const uri = await linkOf(client);
    const headers = { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" };
    const read = async (vars: Record<string, unknown>) =>
      (await rpc({ jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri } }, headers, vars)).messages[0]!;
    expect((await read(everythingOnly())).result.contents[0].uri).toBe(uri);
    const closed = await read(withRules({ deny: [DENIED] }));
    expect(closed.error).toMatchObject({
      code: -32002,
      message: expect.stringContaining(`Resource ${uri} is not available in this session`),
    });
    expect((await read(everythingOnly())).result.contents[0].uri).toBe(uri);
  });
});
