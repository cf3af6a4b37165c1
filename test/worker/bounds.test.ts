// Sessions kept apart and replays bounded (issue 30): derived chat sessions never span an app's
// end users (M9: `user`, `safety_identifier`), and a previous_response_id chain past its byte bound
// is a clear 413, not a 503 at the object's RPC limit (L1).
import { describe, expect, it } from "vitest";
import type { ResponseObject } from "../../worker/responses/shapes.ts";
import { newResponseId } from "../../worker/responses/shapes.ts";
import { MAX_THREAD_BYTES } from "../../worker/session/response-store.ts";
import { call, callWith, newSession, sessionObject, modelLane } from "./helpers.ts";

const upstream = { OPENAI_BASE_URL: modelLane(), OPENAI_API_KEY: "test", UPSTREAM_MAX_RETRIES: "0" };

describe("end users (M9)", () => {
  it("the same conversation from two end users of one app reaches two sessions; one user's steps stay in one", async () => {
    const first = `hello from the app ${crypto.randomUUID()}`;
    const ask = async (who: Record<string, string>) => {
      const r = await callWith(upstream, "POST", "/v1/chat/completions", {
        model: "gpt-4o",
        messages: [{ role: "user", content: first }],
        tool_choice: "none",
        ...who,
      });
      expect(r.status).toBe(200);
      return r.headers.get("x-toolsearch-session");
    };
    const alice = await ask({ user: "alice" });
    expect(await ask({ user: "alice" })).toBe(alice);
    expect(await ask({ user: "bob" })).not.toBe(alice);
    expect(await ask({ safety_identifier: "carol" })).not.toBe(alice);
    expect(await ask({})).not.toBe(alice);
  });
});

describe("previous_response_id chains (L1)", () => {
  it("a chain over the byte bound is refused with 413 naming the bound; one under it is read", async () => {
    const s = await newSession();
    const stub = sessionObject(s.id);
    const chunk = "x".repeat(1024 * 1024);
    let previous: string | null = null;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = newResponseId(s.id);
      const response = { id, previous_response_id: previous } as unknown as ResponseObject;
      expect(await stub.putResponse({ response, messages: [{ role: "user", content: chunk }] })).toBe(true);
      ids.push(id);
      previous = id;
    }
    const under = await stub.responseThread(ids[2]!);
    expect(under && "messages" in under ? under.messages.length : -1).toBe(3);
    const r = await call("POST", "/v1/responses", { model: "gpt-4o", input: "next", previous_response_id: ids[4] });
    expect(r.status).toBe(413);
    expect(r.body.error.message).toContain(`over the ${MAX_THREAD_BYTES}-byte bound`);
  });
});
