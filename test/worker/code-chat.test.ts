// Code mode on the chat surfaces inside workerd, with the scripted model (test/fixtures/
// scripted-llm.ts) whose answer is a program: `x-toolsearch-code: on` offers runCode as a tool the
// Worker runs in a hidden round; the program calls three server-everything tools, one of them in a
// loop of 10, and the model's next request holds only the program's summary, never the tools'
// own results. Every call is audited under the run. The shared scripted model's records are read
// by this test's own marker in the user's message.
import { describe, expect, it } from "vitest";
import { callWith, EDGE, modelLane, type Json } from "./helpers.ts";

const upstream = modelLane();
const vars = { ...EDGE, OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_TIMEOUT_MS: "20000" };

const PROGRAM = `
const echoed = await tools.everything.echo({ message: "hi" });
let total = 0;
for (let i = 1; i <= 10; i++) total += Number(/\\d+/.exec(await tools.everything["get-sum"]({ a: i, b: 0 }))[0]);
const weather = await tools["mcp__everything__get-structured-content"]({ location: "Chicago" });
return { echoed, total, conditions: typeof weather.conditions };`;

const recorded = async (marker: string) =>
  ((await (await fetch(`${upstream.replace(/\/v1$/, "")}/_control/requests`)).json()) as Json[]).filter((r) =>
    JSON.stringify(r.body.messages[0]).includes(marker),
  );

describe("runCode on /v1/chat/completions", () => {
  it("the model's program runs in a hidden round; its next request holds only the summary", async () => {
    const marker = `code-chat-${crypto.randomUUID()}`;
    const r = await callWith(
      vars,
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [{ role: "user", content: `sum things (${marker}) [code] ${PROGRAM}` }] },
      { "x-toolsearch-code": "on", "x-toolsearch-execution": "edge" },
    );
    expect(r.status).toBe(200);
    expect(r.body.choices[0].message.content).toMatch(/^Done with runCode: /);
    const [first, second, ...more] = await recorded(marker);
    expect(more).toEqual([]);
    expect(first.body.tools.map((t: Json) => t.function.name)).toContain("runCode");
    const tool = second.body.messages.at(-1);
    expect(tool.role).toBe("tool");
    const answer = JSON.parse(tool.content);
    expect(answer.value).toEqual({ echoed: "Echo: hi", total: 55, conditions: "string" });
    expect(answer.calls).toHaveLength(12);
    // only the summary: not the structured result, not the sums' sentences
    expect(tool.content).not.toContain("temperature");
    expect(tool.content).not.toMatch(/The sum of/);
    const session = r.headers.get("x-toolsearch-session")!;
    const rows = (await callWith(EDGE, "GET", `/v1/sessions/${session}/audit?run=${answer.run}&limit=100`)).body.events as Json[];
    expect(rows.filter((e) => e.type === "call" && e.via === "code")).toHaveLength(12);
    expect(rows.find((e) => e.type === "run")).toMatchObject({ via: "chat", outcome: "ok" });
  });

  it("without the header, runCode is not offered and the tools list is what it was", async () => {
    const marker = `code-chat-${crypto.randomUUID()}`;
    await callWith(
      vars,
      "POST",
      "/v1/chat/completions",
      { model: "gpt-4o", messages: [{ role: "user", content: `echo hi (${marker}) [code] return 1` }] },
      { "x-toolsearch-execution": "edge" },
    );
    const [first] = await recorded(marker);
    expect((first.body.tools ?? []).map((t: Json) => t.function.name)).not.toContain("runCode");
  });

  it("on /v1/responses and /v1/messages (chat upstream) too: the same header, the same hidden round", async () => {
    const headers = { "x-toolsearch-code": "on", "x-toolsearch-execution": "edge" };
    const m1 = `code-responses-${crypto.randomUUID()}`;
    const responses = await callWith(vars, "POST", "/v1/responses", { model: "gpt-4o", input: `sum (${m1}) [code] ${PROGRAM}` }, headers);
    expect(responses.status).toBe(200);
    expect(responses.body.output_text ?? JSON.stringify(responses.body.output)).toContain("Done with runCode");
    const m2 = `code-messages-${crypto.randomUUID()}`;
    const messages = await callWith(
      vars,
      "POST",
      "/v1/messages",
      { model: "gpt-4o", max_tokens: 100, messages: [{ role: "user", content: `sum (${m2}) [code] ${PROGRAM}` }] },
      { ...headers, "anthropic-version": "2023-06-01" },
    );
    expect(messages.status).toBe(200);
    expect(JSON.stringify(messages.body.content)).toContain("Done with runCode");
    for (const marker of [m1, m2]) {
      const [, second] = await recorded(marker);
      expect(JSON.parse(String(second.body.messages.at(-1).content)).value).toEqual({
        echoed: "Echo: hi",
        total: 55,
        conditions: "string",
      });
    }
  });
});
