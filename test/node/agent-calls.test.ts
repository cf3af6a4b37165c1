// The agent endpoint when things go wrong (agent-rig.ts): the model calls tools it never loaded,
// with good or bad arguments, or tools that do not exist, or will not stop searching; the upstream
// fails, hangs or answers garbage; the client sends a bad request. Each is a clear outcome.
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { ask, AUTH, names, useAgentRig, type APIError, type Json } from "./agent-rig.ts";

const rig = useAgentRig();

describe("calls the model makes without loading", () => {
  it("loads a deferred tool called directly and passes valid arguments to the client", async () => {
    const r = await ask(rig, [{ role: "user", content: "read graph of memory [no-load]" }]);
    expect(r.hops).toBe(1);
    expect((r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe("mcp__memory__read_graph");
    const state = (await (await fetch(`${rig.dev.url}/v1/sessions/${r.session}`, { headers: AUTH })).json()) as Json;
    expect(state.activations).toEqual(["mcp__memory__read_graph"]);
  });

  it("answers invalid arguments with the validation errors and lets the model retry", async () => {
    const r = await ask(rig, [{ role: "user", content: "create an issue on github [no-load] [bad-args]" }]);
    expect(r.hops).toBe(2);
    const call = r.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("mcp__github__create_issue");
    expect(JSON.parse(call.function.arguments)).toEqual({ owner: "example", repo: "example", title: "example" });
    const hidden = rig.llm.requests[1]!.body.messages.at(-1)!;
    expect(String(hidden.content)).toMatch(/^Error: invalid arguments for mcp__github__create_issue:\n- arguments.*owner/s);
    expect(names(rig.llm.requests[1]!)).toContain("mcp__github__create_issue");
  });

  it("answers an unknown tool with the closest names", async () => {
    const r = await ask(rig, [{ role: "user", content: "do something [unknown]" }]);
    expect(r.hops).toBe(2);
    expect(r.message.content).toContain("That tool does not exist");
    expect(String(rig.llm.requests[1]!.body.messages.at(-1)!.content)).toMatch(
      /^Error: there is no tool "mcp__nope__does_not_exist"\. Closest names: mcp__/,
    );
  });

  it("stops at maxHops and makes the model answer with tool_choice none", async () => {
    const r = await ask(rig, [{ role: "user", content: "search github repositories [loop]" }], undefined, { "x-toolsearch-max-hops": "2" });
    expect(r.hops).toBe(3);
    expect(rig.llm.requests.map((q) => q.body.tool_choice)).toEqual([undefined, undefined, "none"]);
    expect(r.message.content).toMatch(/could not finish/);
    expect(r.message.tool_calls ?? []).toEqual([]);
  });
});

describe("upstream failures", () => {
  it("passes a 4xx through in OpenAI's error shape", async () => {
    rig.llm.fail({
      status: 400,
      body: { error: { message: "context too long", type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } },
    });
    const err = await ask(rig, [{ role: "user", content: "hello" }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as APIError).code).toBe("context_length_exceeded");
    expect((err as APIError).message).toContain("context too long");
    expect(rig.llm.requests).toHaveLength(1);
  });

  it("retries a 5xx and succeeds when the upstream recovers", async () => {
    rig.llm.fail({ status: 500 });
    const r = await ask(rig, [{ role: "user", content: "read graph of memory [no-load]" }]);
    expect(r.hops).toBe(1);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it("gives 502 after the retries are spent, for errors, garbage and timeouts", async () => {
    for (const fault of [{ status: 503 }, { garbage: true as const }, { hang: true as const }]) {
      rig.llm.reset();
      rig.llm.fail(fault, fault);
      const res = await fetch(`${rig.dev.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...AUTH },
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: "hello" }] }),
      });
      expect(res.status, JSON.stringify(fault)).toBe(502);
      const body = (await res.json()) as Json;
      expect(body.error.code).toBe("upstream_error");
      expect(body.error.message).toMatch(
        "hang" in fault
          ? /did not answer within 1500 ms \(tried 2 times\)/
          : "garbage" in fault
            ? /not a chat completion stream/
            : /upstream answered 503 \(tried 2 times\)/,
      );
      // a garbage stream is answered 200 and not retried; errors and timeouts are tried twice
      expect(rig.llm.requests).toHaveLength("garbage" in fault ? 1 : 2);
    }
  });
});

describe("bad requests", () => {
  it.each([
    ["no messages", { model: "gpt-4o", messages: [] }, /^messages: Array must contain at least 1/],
    ["bad role", { model: "gpt-4o", messages: [{ role: "robot", content: "x" }] }, /^messages\.0\.role: /],
    [
      "reserved tool name",
      { model: "gpt-4o", messages: [{ role: "user", content: "x" }], tools: [{ type: "function", function: { name: "toolSearch" } }] },
      /^tools\.0\.function\.name: is reserved/,
    ],
    ["n > 1", { model: "gpt-4o", messages: [{ role: "user", content: "x" }], n: 2 }, /^n: only n = 1/],
  ])("%s: 400 naming the field", async (_, body, message) => {
    const res = await fetch(`${rig.dev.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...AUTH },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.message).toMatch(message);
    expect(rig.llm.requests).toHaveLength(0);
  });

  it("404 for an unknown session, without calling upstream", async () => {
    const err = await ask(rig, [{ role: "user", content: "hi" }], "ses_" + "A".repeat(32)).catch((e: unknown) => e);
    expect((err as APIError).status).toBe(404);
    expect(rig.llm.requests).toHaveLength(0);
  });
});
