// The scripted model's lanes (test/fixtures/scripted-llm.ts): test files that share one server
// each use their own `/f/<lane>` prefix, and must not see each other's records or faults. Here two
// lanes of one real server: a reset of one leaves the other's records, a fault queued on one is
// answered only there, and the default lane (no prefix) is a third, separate one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";

let llm: ScriptedLLM;
beforeAll(async () => {
  llm = await startScriptedLLM();
});
afterAll(() => llm.close());

const laneUrl = (lane: string) => llm.url.replace(/\/v1$/, `/f/${lane}/v1`);
const control = async (lane: string, what: string, body?: unknown) =>
  (
    await fetch(
      `${laneUrl(lane).replace(/\/v1$/, "")}/_control/${what}`,
      body === undefined ? {} : { method: "POST", body: JSON.stringify(body) },
    )
  ).json();
const chat = async (base: string, words: string) =>
  (
    await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: words }] }),
    })
  ).status;

describe("the scripted model's lanes", () => {
  it("a reset or a fault in one lane never touches another's records or requests", async () => {
    expect(await chat(laneUrl("a"), "hello from a")).toBe(200);
    expect(await chat(laneUrl("b"), "hello from b")).toBe(200);
    await control("a", "reset");
    expect(await control("a", "requests")).toEqual([]);
    const b = (await control("b", "requests")) as Array<{ body: { messages: Array<{ content: string }> } }>;
    expect(b.map((r) => r.body.messages[0]!.content)).toEqual(["hello from b"]);

    await control("a", "fail", [{ status: 500 }]);
    expect(await chat(laneUrl("b"), "b is not failed")).toBe(200);
    expect(await chat(llm.url, "nor is the default lane")).toBe(200);
    expect(await chat(laneUrl("a"), "a gets its fault")).toBe(500);
    expect(llm.requests.map((r) => r.body.messages[0]!.content)).toEqual(["nor is the default lane"]);
  });
});
