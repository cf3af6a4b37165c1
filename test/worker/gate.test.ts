// The one tool gate in the session object (core/gate.ts, issue 30 M1, M2, L5): a denied tool is
// never loaded, whatever names it (tool_choice, a client tool of the same name, select:), a
// sub-agent profile runs only its whitelist, and the catalog routes describe only what the
// tenant may see. Refusals are audited as denials. (M3, rules changing under a live session, is in
// access.test.ts.)
import { describe, expect, it } from "vitest";
import { callTool, callWith, EDGE, edgeSession, edgeVars, modelLane, OPEN_RULES, sessionObject, type Json } from "./helpers.ts";
import { env } from "cloudflare:workers";
import { keyedSessionId } from "../../worker/session/create.ts";

const RULES = { default: { deny: ["mcp__fixture__whoami"] } };
const WHOAMI = "mcp__fixture__whoami";

const denials = async (id: string) =>
  (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit`)).body.events.filter((e: Json) => e.tool === WHOAMI).map((e: Json) => e.type);

const chat = (body: Record<string, unknown>, vars = edgeVars(RULES)) =>
  callWith(vars, "POST", "/v1/chat/completions", {
    model: "gpt-4o",
    messages: [{ role: "user", content: `gate ${crypto.randomUUID()}` }],
    ...body,
  });

describe("the tool gate", () => {
  it("tool_choice naming a denied tool is refused (403), nothing is loaded, and the refusal is audited as a denial (M1)", async () => {
    const key = `gate-choice-${crypto.randomUUID()}`;
    const r = await chat({
      prompt_cache_key: key,
      tool_choice: { type: "function", function: { name: WHOAMI } },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.message).toBe(`tool ${WHOAMI} is not available in this session (access policy)`);
    const id = await keyedSessionId({ tenant: "tenant-a", env }, `prompt_cache_key\u0000${key}`);
    expect((await callWith(EDGE, "GET", `/v1/sessions/${id}`)).body.activations).toEqual([]);
    expect(await denials(id)).toEqual(["denial"]);
  });

  it("a client tool of a denied tool's name cannot load the catalog tool: refused and audited, never 'activation ok' (M1)", async () => {
    // through the chat endpoint: the client declares mcp__fixture__whoami as its own tool and forces
    // it. The model is given the client's definition only, and the catalog tool is never loaded.
    const key = `gate-client-${crypto.randomUUID()}`;
    const lane = modelLane();
    const r = await chat(
      {
        prompt_cache_key: key,
        tools: [{ type: "function", function: { name: WHOAMI, description: "mine", parameters: { type: "object", properties: {} } } }],
        tool_choice: { type: "function", function: { name: WHOAMI } },
      },
      { ...edgeVars(RULES), OPENAI_BASE_URL: lane, OPENAI_API_KEY: "test" },
    );
    expect(r.status).toBe(200);
    const sent = (await (await fetch(`${lane.replace(/\/v1$/, "")}/_control/requests`)).json()) as Json[];
    expect(sent).toHaveLength(1);
    const offered = (sent[0].body.tools as Json[]).filter((t) => t.function.name === WHOAMI);
    expect(offered.map((t) => t.function.description)).toEqual(["mine"]);
    expect(JSON.stringify(sent[0].body)).not.toContain("Echo the authorization header");
    const id = await keyedSessionId({ tenant: "tenant-a", env }, `prompt_cache_key\u0000${key}`);
    expect((await callWith(EDGE, "GET", `/v1/sessions/${id}`)).body.activations).toEqual([]);
    expect(JSON.stringify((await callWith(EDGE, "GET", `/v1/sessions/${id}/prompt`)).body)).not.toContain(WHOAMI);
    expect(await denials(id)).not.toContain("activation");
    // what the chat loop asks of the session object when a load of that name is due: refused, audited as a denial
    const s = await edgeSession(RULES);
    const direct = await sessionObject(s.id).activate([WHOAMI], `tool_choice:${WHOAMI}`, { via: "chat", load: true }, OPEN_RULES);
    expect(direct).toMatchObject({ loaded: [], denied: [WHOAMI] });
    expect(JSON.stringify((await callWith(EDGE, "GET", `/v1/sessions/${s.id}/prompt`)).body)).not.toContain(WHOAMI);
    expect(await denials(s.id)).toEqual(["denial"]);
  });

  it("a sub-agent profile runs only its whitelist on REST calls (M2)", async () => {
    const policy = env.POLICY as Record<string, Json>;
    const vars = {
      ...EDGE,
      POLICY: { ...policy, profiles: { ...policy.profiles, counter: { subAgent: true, tools: ["mcp__fixture__counter_get"] } } },
    };
    const s = (await callWith(vars, "POST", "/v1/sessions", { model: "gpt-4o", profile: "counter" })).body;
    expect((await callTool(s.id, "mcp__fixture__counter_get", {})).status).toBe(200);
    const other = await callTool(s.id, "mcp__fixture__counter_add", { n: 1 });
    expect(other.status).toBe(403);
    const rows = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit?type=denial`)).body.events;
    expect(rows.map((e: Json) => [e.tool, e.detail])).toEqual([
      ["mcp__fixture__counter_add", `not among profile "counter"'s tools (POLICY.profiles.counter.tools)`],
    ]);
  });

  it("/v1/catalog and /v1/catalog/tools leave out denied and disabled tools (L5)", async () => {
    const rules = { disabled: ["server:everything"], default: { deny: [WHOAMI] } };
    const all = await callWith(EDGE, "GET", "/v1/catalog/tools");
    const tools = await callWith(edgeVars(rules), "GET", "/v1/catalog/tools");
    const names = tools.body.tools.map((t: Json) => t.name);
    expect(all.body.tools.map((t: Json) => t.name)).toContain(WHOAMI);
    expect(names).not.toContain(WHOAMI);
    expect(names.filter((n: string) => n.startsWith("mcp__everything__"))).toEqual([]);
    const info = await callWith(edgeVars(rules), "GET", "/v1/catalog");
    expect(info.body.tools).toBe(names.length);
    expect(info.body.servers.map((s: Json) => s.name)).not.toContain("everything");
  });
});
