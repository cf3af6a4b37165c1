// A clone must pass its tests with nothing beside it: no file of the code, the tests or the
// package manifest may name a path outside the repository (the eval sets once lived in a sibling
// folder named shared, which a user's clone does not have). Checks every tracked file under cli/,
// worker/, test/ and package.json, resolving each relative path the way the code would use it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.ts";

const inside = (p: string) => {
  const r = relative(ROOT, p);
  return r === "" || (!r.startsWith("..") && !r.startsWith(sep) && !/^[A-Za-z]:/.test(r));
};

/** Paths in `text` (a file at `file`, relative to the repository) that point outside the repository. */
export function outsidePaths(file: string, text: string): string[] {
  const found: string[] = [];
  const dir = dirname(join(ROOT, file));
  // a relative path in a string: against the file's folder (imports, import.meta.dirname) ...
  for (const m of text.matchAll(/["'`]((?:\.\.?\/)*\.\.(?:\/[^"'`\s]*)?)["'`]/g)) {
    if (!inside(resolve(dir, m[1]!))) found.push(m[1]!);
  }
  // ... and against the repository root when joined to it (join(ROOT, "../x"))
  for (const m of text.matchAll(/(?:join|resolve)\(\s*ROOT\s*,\s*["'`]([^"'`]+)["'`]/g)) {
    if (!inside(resolve(ROOT, m[1]!))) found.push(m[1]!);
  }
  // a sibling folder by name, or an absolute path into this machine's work folders
  for (const m of text.matchAll(/(?:\.\.\/)+shared\b[^"'`\s]*|["'`](?:\/work|\/home|\/root)\/[^"'`\s]*/g)) found.push(m[0]);
  return [...new Set(found)];
}

// the sibling folder, spelled so that this file does not name it (the scan below skips it anyway)
const SIBLING = ["..", "shared"].join("/");

describe("the repository names no path outside itself", () => {
  it("finds the forms an outside path takes (so the scan below can fail)", () => {
    expect(outsidePaths("test/node/helpers.ts", `export const EVAL_DATA = resolve(ROOT, "${SIBLING}/eval/data");`)).not.toEqual([]);
    expect(
      outsidePaths("test/bench/x.ts", `const f = join(import.meta.dirname, "../../${SIBLING}/eval/data/all-tools.jsonl");`),
    ).not.toEqual([]);
    expect(outsidePaths("package.json", `"bench": "node ${SIBLING}/run.ts"`)).not.toEqual([]);
    expect(outsidePaths("cli/x.ts", 'readFile("/work/shared/eval/data/a.jsonl")')).not.toEqual([]);
    // in-repository forms pass
    expect(
      outsidePaths("test/node/helpers.ts", 'resolve(import.meta.dirname, "../.."); import x from "../../worker/core/catalog.ts";'),
    ).toEqual([]);
    expect(outsidePaths("test/node/helpers.ts", 'join(ROOT, "test/data/eval")')).toEqual([]);
  });

  it("cli/, worker/, test/ and package.json", () => {
    const files = execFileSync(
      "git",
      ["ls-files", "--cached", "--others", "--exclude-standard", "cli", "worker", "test", "package.json", "vitest.config.ts"],
      { cwd: ROOT, encoding: "utf8" },
    )
      .split("\n")
      .filter((f) => f && /\.(ts|js|mjs|json|toml|sh)$/.test(f) && !f.startsWith("test/data/") && f !== "worker/worker-configuration.d.ts")
      .filter((f) => f !== "test/node/repo-paths.test.ts");
    expect(files.length).toBeGreaterThan(50);
    const bad = files.flatMap((f) => outsidePaths(f, readFileSync(join(ROOT, f), "utf8")).map((p) => `${f}: ${p}`));
    expect(bad).toEqual([]);
  });
});
