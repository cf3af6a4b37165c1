// `npm start` as a user runs it (cli/start.ts through npm, on a free port, with its own .dev.vars
// and state folder): it serves the .dev.vars key; `kill <npm pid>` (SIGTERM to npm alone, as a
// process manager or a script sends it) ends wrangler and workerd too, leaving nothing on the
// port; on a taken port it says in one line what holds it and exits 1, having written nothing.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { portHolder, portIsFree } from "../../cli/lib/port-in-use.ts";
import { freePort } from "../fixtures/wrangler-dev.ts";
import { spawnCollect, tempDir } from "./helpers.ts";

const npmStart = (env: Record<string, string>, ...args: string[]) => spawnCollect("npm", ["start", "--", ...args], env, 120_000);

/** Processes whose command line names the port (wrangler dev --port N, workerd --socket-addr=...:N). */
function processesOn(port: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      if (new RegExp(`--port ${port}\\b|:${port}\\b`).test(cmd) && !cmd.includes("vitest")) found.push(`${pid} ${cmd.slice(0, 120)}`);
    } catch {
      // ended while we looked
    }
  }
  return found;
}

describe("npm start", () => {
  it("serves the .dev.vars key, and kill <npm pid> (SIGTERM) ends wrangler and workerd: nothing is left on the port", async () => {
    const dir = await tempDir("toolsearch-start-");
    const port = await freePort();
    const key = "dev-start-test-key-00000000";
    writeFileSync(join(dir, ".dev.vars"), `API_KEYS='${JSON.stringify({ [key]: "dev" })}'\n`);
    const start = npmStart({ TOOLSEARCH_DEV_VARS: join(dir, ".dev.vars") }, "--port", String(port), "--persist-to", join(dir, "state"));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const r = await fetch(`${url}/v1/catalog`, { headers: { authorization: `Bearer ${key}` } }).catch(() => null);
      if (r) {
        expect(r.status, start.log()).toBe(200);
        break;
      }
      if (start.child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not serve:\n${start.log()}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(processesOn(port).length, "wrangler and workerd run").toBeGreaterThan(0);
    process.kill(start.child.pid!, "SIGTERM"); // npm alone, not its process group
    await start.done;
    const gone = Date.now() + 15_000;
    while ((processesOn(port).length || !(await portIsFree(port))) && Date.now() < gone) await new Promise((r) => setTimeout(r, 250));
    expect(processesOn(port)).toEqual([]);
    expect(portHolder(port)).toBeUndefined();
    expect(await portIsFree(port)).toBe(true);
  }, 150_000);

  it("on a taken port: one line naming the port and its holder, exit 1, no .dev.vars written", async () => {
    const dir = await tempDir("toolsearch-start-");
    const port = await freePort();
    const holder = await new Promise<Server>((res) => {
      const s = createServer().listen(port, "127.0.0.1", () => res(s));
    });
    try {
      const { code, err } = await npmStart({ TOOLSEARCH_DEV_VARS: join(dir, ".dev.vars") }, "--port", String(port)).done;
      expect(code).toBe(1);
      expect(err.trim()).toMatch(
        new RegExp(
          `^npm start: port ${port} on 127\\.0\\.0\\.1 is in use by pid ${process.pid} \\(.+\\): stop it, or run npm start -- --port <another port>$`,
        ),
      );
      expect(existsSync(join(dir, ".dev.vars"))).toBe(false);
    } finally {
      holder.close();
    }
  }, 60_000);
});
