// What the model reads about running a loaded tool, per activation mode, checked against what the
// mode does: with `inject` (REST, chat) a loaded tool joins the tools list and is called directly;
// with `proxy` the tools list never changes, so the listing, toolSearch's description and the
// result all say callTool (also for the client's own deferred tools on the chat endpoint); on the
// MCP gateway's dynamic form a loaded tool joins tools/list only once the client re-lists, under
// its prefix, and callTool runs it at once. The scripted upstream (globalSetup) records the chat
// request; the gateway's stable surface is mcp-stable.test.ts.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "./main.ts";
import { AUTH_A, BASE, newSession, promptOf, search, modelLane, type Json } from "./helpers.ts";
import { connect, textOf } from "./mcp-rig.ts";

const JOINS_LIST = "Loaded tools appear in your tools list and stay loaded: call them directly.";
const VIA_CALL_TOOL = "Loaded tools stay loaded; run one with callTool by the exact name the toolSearch result gives.";
const description = (tools: Json[], name: string) => tools.find((t) => t.function.name === name)?.function.description as string;

describe("how a loaded tool is run, as each mode says it", () => {
  it("inject (REST): it joins the tools list, and every text says to call it directly", async () => {
    const s = await newSession({ model: "gpt-4o", deferral: "on", activation: "inject" });
    expect(s.prompt.system).toContain(JOINS_LIST);
    expect(description(s.prompt.tools, "toolSearch")).toContain("Loaded tools are added to your tools list.");
    expect((await search(s.id, "select:mcp__shop__get_order")).body.result).toContain(
      "Loaded 1 tool; it is now in your tools list, call it directly:",
    );
    expect((await promptOf(s.id)).tools.map((t: Json) => t.function.name)).toContain("mcp__shop__get_order");
  });

  it("proxy (REST): the tools list never changes, and every text says callTool", async () => {
    const s = await newSession({ model: "gpt-4o", deferral: "on", activation: "proxy" });
    expect(s.prompt.system).toContain(VIA_CALL_TOOL);
    expect(s.prompt.system).not.toContain("appear in your tools list");
    const toolSearch = description(s.prompt.tools, "toolSearch");
    expect(toolSearch).toContain(
      "Your tools list does not change: the result gives each loaded tool's exact name and input schema; run it with callTool.",
    );
    expect(toolSearch).not.toContain("added to your tools list");
    const result = (await search(s.id, "select:mcp__shop__get_order")).body.result as string;
    expect(result).toContain("Loaded 1 tool; call through callTool:");
    expect(result).toContain('Schemas (call with callTool({"name": ..., "arguments": {...}})):\n{"name":"mcp__shop__get_order"');
    expect(JSON.stringify((await promptOf(s.id)).tools)).toBe(JSON.stringify(s.prompt.tools));
  });

  it("proxy (chat): the client's own deferred tools are listed with the callTool wording too", async () => {
    const upstream = modelLane();
    const control = (what: string, body?: unknown) =>
      fetch(`${upstream.replace(/\/v1$/, "")}/_control/${what}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
    await control("reset", {});
    const tool = (name: string, defer_loading?: boolean) => ({
      type: "function",
      function: {
        name,
        description: `The ${name} tool.`,
        parameters: { type: "object", properties: {} },
        ...(defer_loading ? { defer_loading } : {}),
      },
    });
    const body = { model: "gpt-4o", messages: [{ role: "user", content: "hello" }], tools: [tool("lookup_weather", true), tool("say_hi")] };
    const req = new Request(`${BASE}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-toolsearch-activation": "proxy", ...AUTH_A },
      body: JSON.stringify(body),
    });
    // the shop catalog fits in full: the client's deferred tool brings the section's header itself
    const vars = { CATALOG: "shop@1.0.0.json", OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test" };
    expect((await worker.fetch(req, { ...env, ...vars } as Env, createExecutionContext())).status).toBe(200);
    const first = ((await (await control("requests")).json()) as Json[])[0]!.body;
    const system = first.messages[0].content as string;
    expect(system).toContain("# Deferred tools\n");
    expect(system).toContain("lookup_weather\n");
    expect(system).toContain(VIA_CALL_TOOL);
    expect(system).not.toContain("appear in your tools list");
    expect(first.tools.map((t: Json) => t.function.name)).toContain("callTool");
  });

  it("the gateway's dynamic form: tools/list grows once the client re-lists, and callTool runs a tool at once", async () => {
    const { client } = await connect("activation=inject");
    const listed = (await client.listTools()).tools.find((t) => t.name === "toolSearch")!.description!;
    expect(listed).toContain("Loaded tools join your tools list once your client re-lists it (under any prefix your client adds)");
    expect(listed).not.toContain("call them directly");
    const r = await client.callTool({ name: "toolSearch", arguments: { query: "select:mcp__everything__echo" } });
    expect(textOf(r)).toContain("Loaded 1 tool; it joins your tools list once your client re-lists it; callTool runs it now:");
    expect(textOf(r)).toContain('callTool({"name":"mcp__everything__echo","arguments":{...}})');
    await client.close();
  });
});
