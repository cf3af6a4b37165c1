// The code-mode sandbox (worker/code/sandbox.ts) inside workerd.
import { describe, expect, it } from "vitest";
import { runInSandbox, type SandboxLimits } from "../../worker/code/sandbox.ts";

const LIMITS: SandboxLimits = { steps: 2000, cpuMs: 500, memoryBytes: 16 * 1024 * 1024, wallMs: 2000, logBytes: 4096 };
const none = async () => {
  throw new Error("no tools here");
};

describe("sandbox", () => {
  it("returns the value and the logs", async () => {
    const r = await runInSandbox(`console.log("hi", {a: 1}); return [1, 2, 3].map((x) => x * 2);`, none, LIMITS);
    expect(r).toEqual({ ok: true, value: [2, 4, 6], logs: ['hi {"a":1}'] });
  });
  it("calls tools", async () => {
    const seen: string[] = [];
    const r = await runInSandbox(
      `const a = await tools.everything.echo({ message: "x" }); const b = await Promise.all([1,2].map((i) => tools.mcp__everything__add({a: i, b: 1}))); return { a, b };`,
      async (name, json) => (seen.push(`${name} ${json}`), JSON.stringify(name)),
      LIMITS,
    );
    expect(r).toEqual({ ok: true, value: { a: "everything.echo", b: ["mcp__everything__add", "mcp__everything__add"] }, logs: [] });
    expect(seen).toEqual(['everything.echo {"message":"x"}', 'mcp__everything__add {"a":1,"b":1}', 'mcp__everything__add {"a":2,"b":1}']);
  });
  it("syntax error, throw, loop, memory, pending", async () => {
    for (const [code, kind] of [
      ["return (", "syntax"],
      ["\n\nthrow new Error('boom')", "thrown"],
      ["while (true) {}", "cpu"],
      ["let s = [1]; while (true) s = s.concat(s);", "memory"],
      // few polls, each a long native step: the interpreter-time bound ends it
      ["const a = []; while (true) a.push('x'.repeat(1000));", "cpu"],
      ["while (true) 'x'.repeat(1e6);", "cpu"],
      ["await new Promise(() => {})", "timeout"],
      ["await fetch('https://example.com')", "thrown"],
    ] as const) {
      const started = Date.now();
      const r = await runInSandbox(code, none, LIMITS);
      // each ends within its limit and a margin for a loaded machine, never seconds past it
      expect(Date.now() - started).toBeLessThan(kind === "timeout" ? LIMITS.wallMs + 5000 : 5000);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.kind).toBe(kind);
    }
  });
});
