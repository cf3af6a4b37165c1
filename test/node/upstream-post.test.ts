// The model upstreams' POST (worker/chat/upstream-post.ts), which replaced the openai SDK's retry
// loop (issue 38): the statuses it retries and the ones it does not, retry-after obeyed, the key
// redacted from what a refusal says, and an attempt without an answer timed out. A real HTTP
// server on loopback answers from a script; each test counts the attempts it saw.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { postUpstream, retryDelayMs, type UpstreamRequest } from "../../worker/chat/upstream-post.ts";

type Answer = { status: number; headers?: Record<string, string>; body?: string } | "hang";
let script: Answer[] = [];
let seen: number[] = [];
let server: Server;
let url = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(Date.now());
    req.resume();
    const a = script.shift() ?? { status: 200, body: "ok" };
    if (a === "hang") return;
    res.writeHead(a.status, a.headers).end(a.body ?? "");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chat/completions`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const KEY = "sk-secret-key";
const cfg = { baseURL: "http://upstream", apiKey: KEY, timeoutMs: 300, maxRetries: 2 };
const req = (): UpstreamRequest => ({
  url,
  headers: { authorization: `Bearer ${KEY}` },
  body: "{}",
  keyName: "OPENAI_API_KEY",
  rejection: (status, error, text) => new ToolsearchError("bad_request", `${status}: ${String(error?.message ?? text)}`, status),
});
const post = (answers: Answer[]) => {
  script = answers;
  seen = [];
  return postUpstream(cfg, req(), new AbortController().signal);
};

describe("postUpstream", () => {
  it("retries 429 after its retry-after-ms, then answers", async () => {
    const res = await post([
      { status: 429, headers: { "retry-after-ms": "150" } },
      { status: 200, body: "fine" },
    ]);
    expect(await res.text()).toBe("fine");
    expect(seen).toHaveLength(2);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(140);
  });

  it("does not retry a 503 the upstream says not to retry, nor a 400; the key never shows", async () => {
    await expect(
      post([{ status: 503, headers: { "x-should-retry": "false" }, body: `{"error":{"message":"down ${KEY}"}}` }]),
    ).rejects.toThrow(/^upstream answered 503 \(tried 1 time\): down \[redacted\]$/);
    expect(seen).toHaveLength(1);
    await expect(post([{ status: 400, body: `{"error":{"message":"bad ${KEY}"}}` }])).rejects.toThrow(/^400: bad \[redacted\]$/);
    expect(seen).toHaveLength(1);
  });

  it("a refused key, a redirect and retries spent are each one clear error", async () => {
    await expect(post([{ status: 401 }])).rejects.toThrow(/refused this deployment's key \(HTTP 401\): check OPENAI_API_KEY/);
    await expect(post([{ status: 307, headers: { location: "http://elsewhere/" } }])).rejects.toThrow(/redirect \(HTTP 307\)/);
    await expect(post([{ status: 500 }, { status: 502 }, { status: 503, body: "{}" }])).rejects.toThrow(
      /^upstream answered 503 \(tried 3 times\)/,
    );
    expect(seen).toHaveLength(3);
  });

  it("times out an attempt that gets no answer, and tries again", async () => {
    const res = await post(["hang", { status: 200, body: "late" }]);
    expect(await res.text()).toBe("late");
    expect(seen).toHaveLength(2);
    expect(seen[1]! - seen[0]!).toBeGreaterThanOrEqual(290);
  });

  it("backs off from 0.5 s to 8 s with up to 25% jitter when no wait is named; a wait over a minute is not obeyed", () => {
    for (const [n, top] of [
      [0, 500],
      [1, 1000],
      [5, 8000],
    ] as const) {
      const d = retryDelayMs(n);
      expect(d).toBeLessThanOrEqual(top);
      expect(d).toBeGreaterThanOrEqual(top * 0.75);
    }
    expect(retryDelayMs(0, new Headers({ "retry-after": "2" }))).toBe(2000);
    expect(retryDelayMs(0, new Headers({ "retry-after": "120" }))).toBeLessThanOrEqual(500);
  });
});
