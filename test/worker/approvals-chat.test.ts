// Approvals on the chat surfaces, the Responses API and in code mode, inside workerd with the scripted model: on
// /v1/chat/completions and /v1/messages (edge execution) the approval link is the hidden round's
// tool result, so the model can tell the user; after a yes the same request runs the call. In a
// code-mode run the call throws an error carrying the link. Nothing reaches the server before
// the yes (the fixture server's record of calls).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { BASE, callWith, EDGE, fetchWith, fixture, KEY_A, modelLane, type Json } from "./helpers.ts";

const ADD = "mcp__fixture__counter_add";
const upstream = modelLane();
const VARS = {
  ...EDGE,
  OPENAI_BASE_URL: upstream,
  OPENAI_API_KEY: "test",
  UPSTREAM_TIMEOUT_MS: "20000",
  POLICY: { ...(env.POLICY as object), approval: { default: { ask: [ADD] } } },
};
const EDGE_HEADERS = { "x-toolsearch-execution": "edge" };
const adds = async () => ((await fixture("stats")).calls as Json[]).filter((c) => c.tool === "counter_add").length;
const approvalOf = (text: string) => /approval needed: \S+\.(ap_[A-Za-z0-9_-]{22})/.exec(text)?.[1];
/** What the model was told: the last tool message of the scripted model's requests that carry `marker`. */
async function told(marker: string): Promise<string> {
  const all = (await (await fetch(`${upstream.replace(/\/v1$/, "")}/_control/requests`)).json()) as Json[];
  const mine = all.filter((r) => JSON.stringify(r.body.messages).includes(marker));
  const tool = mine.flatMap((r) => r.body.messages as Json[]).filter((m) => m.role === "tool" || Array.isArray(m.content));
  return JSON.stringify(tool.at(-1) ?? null);
}
const approve = (id: string) => callWith(VARS, "POST", `/v1/approvals/${id}`, { approve: true });

describe("chat and Messages: the link in the hidden round's tool result", () => {
  it("/v1/chat/completions: the model is told the link; after a yes the same request runs the call once", async () => {
    const ask = (marker: string) =>
      callWith(
        VARS,
        "POST",
        "/v1/chat/completions",
        { model: "gpt-4o", messages: [{ role: "user", content: `add to the counter ${ADD} [args {"n":21}] (${marker})` }] },
        EDGE_HEADERS,
      );
    const before = await adds();
    const marker = crypto.randomUUID();
    const first = await ask(marker);
    expect(first.status).toBe(200);
    expect(first.body.choices[0].message.content).toMatch(/^Done with mcp__fixture__counter_add: Error: approval needed: https:/);
    const said = await told(marker);
    expect(said).toContain("A person must approve this call of mcp__fixture__counter_add (server fixture)");
    expect(await adds()).toBe(before);
    expect((await approve(approvalOf(said)!)).status).toBe(200);
    // the same session (x-toolsearch-session) asks again with the same arguments: the yes covers it
    const again = await callWith(
      VARS,
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [{ role: "user", content: `add to the counter ${ADD} [args {"n":21}] (again)` }] },
      { ...EDGE_HEADERS, "x-toolsearch-session": first.headers.get("x-toolsearch-session")! },
    );
    expect(again.body.choices[0].message.content).not.toContain("approval needed");
    expect(await adds()).toBe(before + 1);
  });

  it("/v1/messages (chat upstream): the same link, as the tool result the model reads", async () => {
    const marker = crypto.randomUUID();
    const r = await callWith(
      VARS,
      "POST",
      "/v1/messages",
      {
        model: "claude-sonnet-4-6",
        max_tokens: 512,
        messages: [{ role: "user", content: `add to the counter ${ADD} [args {"n":22}] (${marker})` }],
      },
      EDGE_HEADERS,
    );
    expect(r.status).toBe(200);
    expect(approvalOf(await told(marker))).toBeDefined();
  });
});

describe("code mode: the call throws, carrying the link", () => {
  it("the program can catch it and return the link; nothing is sent", async () => {
    const s = await callWith(VARS, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", code: "on" });
    const before = await adds();
    const r = await callWith(VARS, "POST", `/v1/sessions/${s.body.id}/code`, {
      code: `try { await tools.fixture.counter_add({ n: 23 }); return "ran"; } catch (e) { return String(e.message); }`,
    });
    expect(r.status).toBe(200);
    expect(approvalOf(String(r.body.value))).toBeDefined();
    expect(await adds()).toBe(before);
  });
});

describe("the Responses API: mcp_approval_request, then mcp_approval_response", () => {
  const client = new OpenAI({ apiKey: KEY_A, baseURL: `${BASE}/v1`, fetch: fetchWith(VARS), maxRetries: 0 });
  const ask = (n: number) =>
    client.responses.create(
      { model: "gpt-4o", input: `add to the counter ${ADD} [args {"n":${n}}] (${crypto.randomUUID()})` },
      { headers: EDGE_HEADERS },
    );

  it("the openai client gets the request item; approving it runs the call once, and the model goes on from its result", async () => {
    const before = await adds();
    const first = await ask(31);
    const item = first.output.find((o) => (o as { type: string }).type === "mcp_approval_request") as unknown as Json;
    expect(item).toMatchObject({ id: expect.stringMatching(/^ap_/), name: ADD, server_label: "fixture", arguments: '{"n":31}' });
    expect(await adds()).toBe(before);
    const second = await client.responses.create(
      {
        model: "gpt-4o",
        previous_response_id: first.id,
        input: [{ type: "mcp_approval_response", approval_request_id: item.id, approve: true }],
      },
      { headers: EDGE_HEADERS },
    );
    expect(second.output_text).toMatch(/^Done with mcp__fixture__counter_add: /);
    expect(second.output_text).not.toContain("approval needed");
    expect(await adds()).toBe(before + 1);
    // decided once: the same answer again is refused, naming the field
    const again = await client.responses
      .create(
        {
          model: "gpt-4o",
          previous_response_id: first.id,
          input: [{ type: "mcp_approval_response", approval_request_id: item.id, approve: true }],
        },
        { headers: EDGE_HEADERS },
      )
      .catch((e: unknown) => e as { status: number; message: string });
    expect(again).toMatchObject({ status: 409 });
    expect(String((again as { message: string }).message)).toContain("input.0.approval_request_id");
    expect(await adds()).toBe(before + 1);
  });

  it("a no: the model is told the person denied it, and nothing runs", async () => {
    const before = await adds();
    const first = await ask(32);
    const item = first.output.find((o) => (o as { type: string }).type === "mcp_approval_request") as unknown as Json;
    const second = await client.responses.create(
      {
        model: "gpt-4o",
        previous_response_id: first.id,
        input: [{ type: "mcp_approval_response", approval_request_id: item.id, approve: false, reason: "not now" }],
      },
      { headers: EDGE_HEADERS },
    );
    expect(second.output_text).toContain(`the person asked to approve this call of ${ADD} denied`);
    expect(await adds()).toBe(before);
  });
});
