// The agent endpoint inside workerd: a client that goes away aborts the upstream call, whether it
// drops a waiting request (request.signal) or cancels a stream it was reading. The upstream is the
// scripted model in Node (globalSetup); its /_control endpoints say what it saw.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, expect, it } from "vitest";
import worker from "./main.ts";
import { AUTH_A, BASE, modelLane } from "./helpers.ts";

const upstream = modelLane();
const control = (what: string, body?: unknown) =>
  fetch(`${upstream.replace(/\/v1$/, "")}/_control/${what}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) }).then(
    (r) => r.json(),
  ) as Promise<Array<{ aborted: boolean }>>;

function chat(signal: AbortSignal, stream: boolean): Promise<Response> {
  const req = new Request(`${BASE}/v1/chat/completions`, {
    method: "POST",
    signal,
    headers: { "content-type": "application/json", ...AUTH_A },
    body: JSON.stringify({ model: "gpt-4o", stream, messages: [{ role: "user", content: "hello" }] }),
  });
  return worker.fetch(
    req,
    { ...env, OPENAI_BASE_URL: upstream, OPENAI_API_KEY: "test", UPSTREAM_TIMEOUT_MS: "20000" } as Env,
    createExecutionContext(),
  );
}

async function until(what: () => Promise<boolean>, ms = 3000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await what()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

beforeEach(() => control("reset", {}));

it("aborts the upstream call when the client drops a waiting request", async () => {
  await control("fail", [{ hang: true }]);
  const ac = new AbortController();
  const pending = chat(ac.signal, false).catch((e: unknown) => e);
  expect(await until(async () => (await control("requests")).length === 1)).toBe(true);
  ac.abort();
  expect(await until(async () => (await control("requests"))[0]!.aborted)).toBe(true);
  await pending;
});

it("aborts the upstream call when the client cancels a stream mid-answer", async () => {
  await control("fail", [{ stall: true }]);
  const res = await chat(new AbortController().signal, true);
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toContain('"role":"assistant"');
  expect((await control("requests"))[0]!.aborted).toBe(false);
  await reader.cancel();
  expect(await until(async () => (await control("requests"))[0]!.aborted)).toBe(true);
});
