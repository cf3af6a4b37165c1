// `npm run demo` as a user runs it (test/fixtures/demo.ts, on free ports instead of :8787 and :8788):
// it plays its conversation through the real openai client against the scripted model, then stops
// both servers and exits by itself, saying how to keep them running.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../fixtures/wrangler-dev.ts";
import { ROOT } from "./helpers.ts";

function runDemo(env: Record<string, string>): Promise<{ code: number | null; out: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, "test/fixtures/demo.ts")], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    // a demo that never exits is the bug this test guards against: kill it and report what it printed
    const timer = setTimeout(() => child.kill("SIGKILL"), 150_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, ms: Date.now() - started });
    });
  });
}

describe("npm run demo", () => {
  it("plays its conversation, then stops both servers and exits by itself", async () => {
    const [worker, upstream] = [await freePort(), await freePort()];
    const { code, out } = await runDemo({ DEMO_PORT: String(worker), DEMO_UPSTREAM_PORT: String(upstream) });
    expect(code, out).toBe(0);
    expect(out.match(/^user: /gm)).toHaveLength(3);
    expect(out).toMatch(/assistant calls mcp__github__create_issue\(/);
    expect(out).toMatch(/^ {2}assistant: /m);
    expect(out).toMatch(/Done \(session ses_[\w-]+\): both servers stopped\. npm run demo -- --keep keeps them running/);
    // both ports are free again: nothing was left running
    for (const port of [worker, upstream]) await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  }, 160_000);
});
