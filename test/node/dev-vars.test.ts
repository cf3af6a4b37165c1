// `npm start`'s local secrets (issue 30, H1): no well-known key. The first run writes .dev.vars with
// a random development key and prints it; the next runs keep it; `key` prints it alone for the
// walkthroughs; the example file itself serves no request, and no tracked file names the old key.
import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { NODE, ROOT, tempDir } from "./helpers.ts";

const SCRIPT = join(ROOT, "cli/dev-vars.ts");

async function devVars(file: string, verb: string) {
  try {
    const r = await promisify(execFile)(NODE, [SCRIPT, verb], { env: { ...process.env, TOOLSEARCH_DEV_VARS: file } });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe("npm start's development key", () => {
  it("is random per checkout, written once, printed, and read back by `key`", async () => {
    const [a, b] = [join(await tempDir(), ".dev.vars"), join(await tempDir(), ".dev.vars")];
    const first = await devVars(a, "init");
    await devVars(b, "init");
    const keyA = (await devVars(a, "key")).stdout.trim();
    const keyB = (await devVars(b, "key")).stdout.trim();
    expect(keyA).toMatch(/^dev-[A-Za-z0-9_-]{24}$/);
    expect(keyB).not.toBe(keyA);
    expect(first.stderr).toContain(keyA);
    // the file holds it as API_KEYS, with a random token-sealing key, readable only by its owner
    const text = readFileSync(a, "utf8");
    expect(JSON.parse(/^API_KEYS='(.*)'$/m.exec(text)![1]!)).toEqual({ [keyA]: "dev" });
    expect(/^TOKEN_ENCRYPTION_KEY=(.{32,})$/m.exec(text)).not.toBeNull();
    expect(statSync(a).mode & 0o077).toBe(0);
    // a second init keeps the key
    expect((await devVars(a, "init")).stderr).toContain(keyA);
    expect((await devVars(a, "key")).stdout.trim()).toBe(keyA);
  });

  it("says in one line what is wrong when there is no .dev.vars", async () => {
    const r = await devVars(join(await tempDir(), ".dev.vars"), "key");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/missing: run npm start once/);
  });

  it("is in no tracked file: the example has no key, and the old well-known key is gone", async () => {
    expect(/^API_KEYS='(.*)'$/m.exec(readFileSync(join(ROOT, ".dev.vars.example"), "utf8"))![1]).toBe("{}");
    const { stdout } = await promisify(execFile)("git", ["ls-files"], { cwd: ROOT });
    const tracked = stdout.split("\n").filter((f) => /\.(md|ts|json|toml|example)$/.test(f) && !f.endsWith("dev-vars.test.ts"));
    const naming = tracked.filter((f) => readFileSync(join(ROOT, f), "utf8").includes("dev-key-change-me-0000"));
    expect(naming).toEqual([]);
  });
});
