// A browser test never passes by skipping in CI: page-html's Chromium block is run in a child
// vitest with no Chromium at $CHROMIUM (a path that does not exist), once with CI=true, where it
// must fail saying Chromium is missing, and once without, where it skips with a warning. The child
// uses a bare config (no workers project) so it builds nothing the parent's runs are using.
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, tempDir } from "./helpers.ts";

async function runBrowserBlock(ci: boolean): Promise<{ code: number; output: string }> {
  const dir = await tempDir("toolsearch-browser-ci-");
  const config = join(dir, "vitest.config.mjs");
  await writeFile(config, `export default { test: { root: ${JSON.stringify(ROOT)}, include: ["test/node/page-html.test.ts"] } };\n`);
  const env: NodeJS.ProcessEnv = { ...process.env, CHROMIUM: join(dir, "no-chromium") };
  delete env.CI;
  if (ci) env.CI = "true";
  const vitest = join(ROOT, "node_modules/.bin/vitest");
  const args = ["run", "--config", config, "-t", "headless Chromium", "--reporter", "verbose"];
  return new Promise((resolve) =>
    execFile(vitest, args, { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    ),
  );
}

describe("browser tests without Chromium", () => {
  it("fail under CI=true, saying Chromium is missing", async () => {
    const { code, output } = await runBrowserBlock(true);
    expect(code).toBe(1);
    expect(output).toContain("has Chromium (CI=true: a browser test may not skip)");
    expect(output).toMatch(/opening the --html files in a browser cannot run under CI=true: no Chromium at .*no-chromium/);
  });

  it("skip with a warning otherwise", async () => {
    const { code, output } = await runBrowserBlock(false);
    expect(code).toBe(0);
    expect(output).toMatch(/SKIPPED: opening the --html files in a browser: no Chromium at .*no-chromium/);
  });
});
