// Shared test helpers: temp dirs, config files, the fixture MCP server command line, a command
// run as a user runs it (its output collected, killed when it hangs), and the `describe` of tests
// that need Chromium (which may skip on a developer's machine, never in CI).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, it } from "vitest";

export const ROOT = resolve(import.meta.dirname, "../..");
export const FIXTURE_SERVER = join(ROOT, "test/fixtures/mcp-server.ts");
export const EVAL_DATA = join(ROOT, "test/data/eval");
export const NODE = process.execPath;

export async function tempDir(prefix = "toolsearch-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

/** A stdio server entry running the fixture server with the given flags. */
export function fixture(...args: string[]) {
  return { command: NODE, args: [FIXTURE_SERVER, ...args] };
}

export async function writeConfig(dir: string, config: Record<string, unknown>): Promise<string> {
  const path = join(dir, "toolsearch.config.json");
  await writeFile(path, JSON.stringify({ name: "test", version: "1.0.0", ...config }, null, 2));
  return path;
}

export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
    srv.on("error", rej);
  });
}

/**
 * `describe` for tests that need Chromium, from launchChromium's result (test/fixtures/browser.ts).
 * Without a browser they skip with a warning on a developer's machine; under CI=true (.ci/run) the
 * block is one failing test saying Chromium is missing, so CI cannot pass green without them.
 */
export function describeInBrowser(launched: unknown, what: string): (name: string, body: () => void) => void {
  if (typeof launched !== "string") return (name, body) => describe(name, body);
  if (process.env.CI === "true")
    return (name) =>
      describe(name, () =>
        it("has Chromium (CI=true: a browser test may not skip)", () => {
          throw new Error(`${what} cannot run under CI=true: ${launched}`);
        }),
      );
  console.warn(`SKIPPED: ${what}: ${launched}`);
  return (name, body) => describe.skip(name, body);
}

export interface Spawned {
  child: ChildProcess;
  done: Promise<{ code: number | null; out: string; err: string }>;
  /** stdout and stderr so far */
  log(): string;
}

/** `command args` from the repo root with `env` added; SIGKILLed after `timeoutMs` (a hang is the bug). */
export function spawnCollect(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Spawned {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    }),
  );
  return { child, done, log: () => out + err };
}
