// `npm run demo` as a user runs it (test/fixtures/demo.ts, on free ports instead of :8787 and :8788,
// with its own .dev.vars and temp folder): it plays its conversation through the real openai client
// against the scripted model, then stops both servers and exits by itself, saying how to keep them
// running; with --keep it serves the .dev.vars key, the one `npm run -s key` prints; on a taken
// port it says in one line what holds it, and starts, writes and leaves nothing.
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../fixtures/wrangler-dev.ts";
import { ROOT, spawnCollect, tempDir } from "./helpers.ts";

// a demo that never exits is the bug this test guards against: it is killed, and what it printed reported
const startDemo = (env: Record<string, string>, ...args: string[]) =>
  spawnCollect(process.execPath, [join(ROOT, "test/fixtures/demo.ts"), ...args], env, 150_000);

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Its own temp folder (TMPDIR) and .dev.vars for one demo run, and free ports. */
async function demoEnv() {
  const tmp = await tempDir("toolsearch-tmpdir-"); // not toolsearch-demo-*: those are what must not be left
  made.push(tmp);
  const [worker, upstream] = [await freePort(), await freePort()];
  const env = {
    DEMO_PORT: String(worker),
    DEMO_UPSTREAM_PORT: String(upstream),
    TMPDIR: tmp,
    TOOLSEARCH_DEV_VARS: join(tmp, ".dev.vars"),
  };
  return { env, tmp, worker, upstream, left: () => readdirSync(tmp).filter((f) => f.startsWith("toolsearch-demo-")) };
}

const listen = (port: number) =>
  new Promise<Server>((res) => {
    const s = createServer().listen(port, "127.0.0.1", () => res(s));
  });

describe("npm run demo", () => {
  it("plays its conversation, then stops both servers and exits by itself", async () => {
    const { env, worker, upstream, left } = await demoEnv();
    const { code, out, err } = await startDemo(env).done;
    expect(code, out + err).toBe(0);
    expect(out.match(/^user: /gm)).toHaveLength(3);
    expect(out).toMatch(/assistant calls mcp__github__create_issue\(/);
    expect(out).toMatch(/^ {2}assistant: /m);
    expect(out).toMatch(/Done \(session ses_[\w-]+\): both servers stopped\. npm run demo -- --keep keeps them running/);
    // both ports are free again, and its state folder is gone: nothing was left behind
    for (const port of [worker, upstream]) await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
    expect(left()).toEqual([]);
  }, 160_000);

  it("--keep serves the development key of .dev.vars (what npm run -s key prints), not a key of its own", async () => {
    const { env, worker, left } = await demoEnv();
    const key = "dev-demo-test-key-0000000000";
    writeFileSync(env.TOOLSEARCH_DEV_VARS, `API_KEYS='${JSON.stringify({ [key]: "dev" })}'\n`);
    const demo = startDemo(env, "--keep");
    const deadline = Date.now() + 140_000;
    while (!/Ctrl-C stops them/.test(demo.log()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    const session = /\/v1\/sessions\/(ses_[\w-]+)/.exec(demo.log())?.[1];
    expect(session, demo.log()).toBeDefined();
    const asked = await fetch(`http://127.0.0.1:${worker}/v1/sessions/${session}`, { headers: { authorization: `Bearer ${key}` } });
    expect(asked.status).toBe(200);
    const other = await fetch(`http://127.0.0.1:${worker}/v1/sessions/${session}`, {
      headers: { authorization: "Bearer dev-not-the-key-000" },
    });
    expect(other.status).toBe(401);
    expect(demo.log()).toContain(`curl -H "authorization: Bearer $(npm run -s key)"`);
    demo.child.kill("SIGTERM");
    expect((await demo.done).code).toBe(0);
    await expect(fetch(`http://127.0.0.1:${worker}/`)).rejects.toThrow();
    expect(left()).toEqual([]);
  }, 160_000);

  it.each(["worker", "upstream"] as const)(
    "on a taken %s port: one line naming the port and its holder, exit 1, nothing left",
    async (which) => {
      const { env, worker, upstream, left } = await demoEnv();
      const port = which === "worker" ? worker : upstream;
      const holder = await listen(port);
      try {
        const { code, out, err } = await startDemo(env).done;
        expect(code).toBe(1);
        expect(out).toBe("");
        const name = which === "worker" ? "DEMO_PORT" : "DEMO_UPSTREAM_PORT";
        // this test's own process holds the port
        expect(err.trim()).toMatch(
          new RegExp(
            `^npm run demo: port ${port} on 127\\.0\\.0\\.1 is in use by pid ${process.pid} \\(.+\\): stop it, or choose another with ${name}=<port> npm run demo$`,
          ),
        );
        expect(left()).toEqual([]);
        expect(existsSync(env.TOOLSEARCH_DEV_VARS)).toBe(false);
      } finally {
        holder.close();
      }
    },
    60_000,
  );
});
