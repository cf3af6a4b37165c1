// The `catalog` binary end to end (spawned like a user runs it): build, --check and the
// version-bump guard, verify on a tampered file, stats and diff output, --help everywhere.
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../cli/lib/config.ts";
import { publishCatalog } from "../../cli/lib/publish.ts";
import { catalogStats } from "../../cli/lib/stats.ts";
import { tokenCounter } from "../../cli/lib/tokens.ts";
import { catalogHash, serializeCatalog, type Catalog } from "../../worker/core/catalog.ts";
import { toolDeclaration } from "../../worker/core/declarations.ts";
import { ROOT, tempDir } from "./helpers.ts";

const DEMO = "catalogs/demo@1.1.2.2aa18af8f41d.json";

const run = async (cwd: string, ...args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, "cli/index.ts"), ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};

const tool = (name: string, description = `Does ${name}.`, props: Record<string, unknown> = { q: { type: "string" } }) => ({
  name,
  description,
  inputSchema: { type: "object", properties: props },
});

async function project(tools: unknown[], version = "1.0.0") {
  const dir = await tempDir();
  await writeFile(join(dir, "tools.json"), JSON.stringify({ tools }));
  await writeFile(
    join(dir, "toolsearch.config.json"),
    JSON.stringify({ name: "shop", version, mcpServers: { shop: { tools: "tools.json" } } }),
  );
  return dir;
}

async function setTools(dir: string, tools: unknown[], version?: string) {
  await writeFile(join(dir, "tools.json"), JSON.stringify({ tools }));
  if (version)
    await writeFile(
      join(dir, "toolsearch.config.json"),
      JSON.stringify({ name: "shop", version, mcpServers: { shop: { tools: "tools.json" } } }),
    );
}

const base = [tool("list_orders"), tool("get_order"), tool("refund_order")];

describe("catalog build", () => {
  let dir: string;
  let file: string | undefined;
  beforeAll(async () => {
    dir = await project(base);
    const r = await run(dir, "build");
    expect(r.code).toBe(0);
    [file] = await readdir(join(dir, "catalogs"));
  });

  it("writes catalogs/<name>@<version>.<hash12>.json with progress on stderr", async () => {
    expect(file).toMatch(/^shop@1\.0\.0\.[0-9a-f]{12}\.json$/);
    const again = await run(dir, "build");
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^unchanged: catalogs\/shop@1\.0\.0\.[0-9a-f]{12}\.json \(1 servers, 3 tools/);
    expect(again.stderr).toMatch(/ok {4}shop +3 tools/);
    expect(await readdir(join(dir, "catalogs"))).toEqual([file]);
  });

  it("--check passes when nothing changed", async () => {
    const r = await run(dir, "build", "--check");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^up to date: shop@1\.0\.0#[0-9a-f]{12} matches/);
  });

  it.each([
    ["a tool added", [...base, tool("cancel_order")], "1 added (mcp__shop__cancel_order)", "1.1.0 (minor)"],
    ["a tool removed", base.slice(0, 2), "1 removed (mcp__shop__refund_order)", "2.0.0 (major)"],
    [
      "a schema changed",
      [base[0], base[1], tool("refund_order", undefined, { q: { type: "number" } })],
      "1 schema changed",
      "2.0.0 (major)",
    ],
    [
      "a description changed",
      [base[0], base[1], tool("refund_order", "Refunds an order in full.")],
      "1 description changed",
      "1.0.1 (patch)",
    ],
  ])("refuses %s without a version bump, in build and --check, writing nothing", async (_, tools, what, bump) => {
    // in-process (the library the command delegates to): the tokenizer loads once for all cases
    const d = await project(base);
    const publish = async (check = false) =>
      publishCatalog(await loadConfig(join(d, "toolsearch.config.json")), { outDir: join(d, "catalogs"), check }).then(
        (r) => r.status,
        (e: Error) => e.message,
      );
    expect(await publish()).toBe("written");
    await setTools(d, tools);
    for (const check of [false, true]) {
      const message = await publish(check);
      expect(message).toContain(`shop@1.0.0 changed (${what}`);
      expect(message).toContain(`without a version bump: set "version" to ${bump}`);
    }
    expect(await readdir(join(d, "catalogs"))).toHaveLength(1);
    await setTools(d, tools, bump.split(" ")[0]);
    expect(await publish()).toBe("written");
    expect(await readdir(join(d, "catalogs"))).toHaveLength(2);
  });

  it("prints the refusal as one line and exits 1", async () => {
    const d = await project(base);
    expect((await run(d, "build")).code).toBe(0);
    await setTools(d, base.slice(0, 2));
    const r = await run(d, "build", "--check");
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(
      /^catalog: shop@1\.0\.0 changed \(1 removed \(mcp__shop__refund_order\), server shop: summary changed\) without a version bump: set "version" to 2\.0\.0 \(major\)$/,
    );
  });

  it("--check fails when no catalog of that version is committed", async () => {
    const d = await project(base);
    const r = await run(d, "build", "--check");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("catalog: no committed catalog shop@1.0.0 in catalogs");
  });
});

describe("catalog verify / stats / diff", () => {
  let dir: string;
  let v1: string | undefined;
  let v2: string | undefined;
  beforeAll(async () => {
    dir = await project(base);
    await run(dir, "build");
    await setTools(dir, [base[0], tool("get_order", "Fetch one order by id."), tool("cancel_order")], "2.0.0");
    await run(dir, "build");
    [v1, v2] = (await readdir(join(dir, "catalogs"))).map((f) => join(dir, "catalogs", f));
  });

  it("verify accepts a good file and rejects one changed byte with the reason", async () => {
    expect((await run(dir, "verify", v1!)).stdout).toMatch(/^ok: shop@1\.0\.0#[0-9a-f]{12} \(3 tools, 1 servers/);
    const text = await readFile(v1!, "utf8");
    const at = text.indexOf("Does get_order") + 5;
    const tampered = join(dir, "tampered.json");
    await writeFile(tampered, text.slice(0, at) + "G" + text.slice(at + 1));
    const r = await run(dir, "verify", tampered);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^catalog: .*tampered\.json: hash mismatch: file says [0-9a-f]{12}, content hashes to [0-9a-f]{12}\n$/);
  });

  it("stats --json gives tools, servers and the token bill in every listing form", async () => {
    const r = await run(dir, "stats", v1!, "--json");
    const s = JSON.parse(r.stdout);
    expect(s).toMatchObject({ tools: 3, servers: 1, encoding: "o200k_base" });
    expect(s.tokens.full).toBeGreaterThan(0);
    expect(Object.keys(s.tokens.forms)).toEqual(["names", "grouped", "servers", "none"]);
    // deferred: the prompt in the form auto picks for 128k (a 3-tool catalog keeps its names)
    expect(s.tokens.auto).toMatchObject({ window: 128000, budget: 2560, form: "names" });
    expect(s.tokens.deferred).toBe(s.tokens.forms.names);
    expect(s.tokens.ratio).toBeCloseTo(s.tokens.deferred / s.tokens.full, 10);
    for (const f of ["names", "grouped", "servers", "none"]) expect(s.tokens.forms[f]).toBeGreaterThan(s.tokens.sections[f]);
    expect(s.largest).toHaveLength(3);
    // a window with room for the smallest form only (in a 3-tool catalog, names are the next smallest)
    const small = JSON.parse((await run(dir, "stats", v1!, "--json", "--window", String(s.tokens.sections.none * 50))).stdout);
    expect(small.tokens.auto).toMatchObject({ budget: s.tokens.sections.none, form: "none" });
    expect(small.tokens.deferred).toBe(small.tokens.forms.none);
    const text = await run(dir, "stats", v1!);
    expect(text.stdout).toContain("full injection");
    expect(text.stdout).toMatch(/ {4}names +\d+ tokens .*<- auto at 128000\n {4}grouped +\d+ tokens/);
    expect(text.stdout).toContain('auto: listing "names":');
  });

  it("stats counts every tool as a TypeScript declaration beside its JSON schema, as declarations.ts renders it", async () => {
    const catalog = JSON.parse(await readFile(v1!, "utf8")) as Catalog;
    const count = await tokenCounter("o200k_base");
    const perTool = catalog.tools.map((t) => count(toolDeclaration(t)));
    expect(catalog.tools.map((t) => t.tokens.declaration)).toEqual(perTool);
    const sum = perTool.reduce((a, b) => a + b, 0);
    const s = JSON.parse((await run(dir, "stats", v1!, "--json")).stdout);
    expect(s.tokens.declarations).toBe(sum);
    expect(s.tokens.declarations).toBeGreaterThan(0);
    expect(s.tokens.full).toBe(catalog.tools.reduce((a, t) => a + t.tokens.definition, 0));
    const text = (await run(dir, "stats", v1!)).stdout;
    expect(text).toMatch(
      new RegExp(`\\n {2}full injection +${s.tokens.full} tokens .*\\n {2}as declarations +${sum} tokens +\\(every tool`),
    );
    // another encoding recounts the declarations too
    const cl100k = await tokenCounter("cl100k_base");
    const recounted = await catalogStats(catalog, { encoding: "cl100k_base" });
    expect(recounted.tokens.declarations).toBe(catalog.tools.reduce((a, t) => a + cl100k(toolDeclaration(t)), 0));
    // a v2 file built before code mode (no declaration counts) still reads, and says so
    const before = catalog.tools.map(({ tokens: { declaration: _d, ...tokens }, ...t }) => ({ ...t, tokens }));
    const old = { ...catalog, tools: before, hash: await catalogHash({ ...catalog, tools: before }) };
    const oldFile = join(dir, "before-code-mode.json");
    await writeFile(oldFile, serializeCatalog(old));
    expect((await run(dir, "verify", oldFile)).code).toBe(0);
    expect(JSON.parse((await run(dir, "stats", oldFile, "--json")).stdout).tokens.declarations).toBeNull();
    expect((await run(dir, "stats", oldFile)).stdout).toContain(
      "as declarations       (not counted: the catalog was built before code mode",
    );
  });

  it("verify, stats and diff name an old catalog format and exit 1", async () => {
    const old = join(ROOT, "test/fixtures/catalog-v1/shop@1.0.0.abbdda6763df.json");
    for (const cmd of [
      ["verify", old],
      ["stats", old],
      ["diff", old, v1!],
    ]) {
      const r = await run(dir, ...cmd);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `catalog: ${old}: catalog format "toolsearch.catalog/v1" is not read by this build, which reads "toolsearch.catalog/v2": rebuild it with catalog build (and a new version)\n`,
      );
    }
  });

  it("diff names added, removed and changed tools, the bump and the prompt change", async () => {
    const r = await run(dir, "diff", v1!, v2!, "--json");
    const d = JSON.parse(r.stdout);
    expect(d).toMatchObject({
      added: ["mcp__shop__cancel_order"],
      removed: ["mcp__shop__refund_order"],
      changed: [{ name: "mcp__shop__get_order", kind: "description" }],
      bump: "major",
      deferredPromptChanged: true,
      listingsChanged: ["names", "grouped", "servers"],
    });
    const same = JSON.parse((await run(dir, "diff", v1!, v1!, "--json")).stdout);
    expect(same).toMatchObject({ added: [], removed: [], changed: [], bump: "none", deferredPromptChanged: false });
    const text = (await run(dir, "diff", v1!, v2!)).stdout;
    expect(text).toContain("+ mcp__shop__cancel_order");
    expect(text).toContain("- mcp__shop__refund_order");
    expect(text).toContain("~ mcp__shop__get_order (description)");
  });
});

describe("catalog --help", () => {
  it.each(["build", "verify", "stats", "diff", "enrich"])("%s --help explains the command", async (cmd) => {
    const r = await run(ROOT, cmd, "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`catalog ${cmd}`);
    expect(r.stdout).toMatch(/USAGE/);
  });

  it("fits 100 columns: no line of any --help is wider, none ends in padding", async () => {
    for (const cmd of ["", "build", "verify", "stats", "diff", "search", "eval", "enrich"]) {
      const r = await run(ROOT, ...(cmd ? [cmd] : []), "--help");
      expect(r.code, cmd).toBe(0);
      // eslint-disable-next-line no-control-regex
      const lines = r.stdout.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
      expect(lines.length, cmd).toBeGreaterThan(5);
      expect(
        lines.filter((l) => l.length > 100 || / $/.test(l)),
        cmd,
      ).toEqual([]);
    }
    // a wrapped description continues under its own column
    const stats = (await run(ROOT, "stats", "--help")).stdout.replace(/\x1b\[[0-9;]*m/g, "");
    expect(stats).toMatch(/\n {2}--html=<out\.html> {4}Also write the view .*\n {23}\S/);
  });

  it("an unknown command or missing argument is one clear error", async () => {
    const a = await run(ROOT, "frobnicate");
    expect(a.code).toBe(2);
    expect(a.stderr.trim()).toBe(
      "catalog: unknown command frobnicate; the commands: build, verify, stats, diff, search, eval, enrich (see catalog --help)",
    );
    const b = await run(ROOT, "verify");
    expect(b.code).toBe(1);
    expect(b.stderr).toContain("Missing required positional argument: CATALOG");
  });

  it("a misspelled command exits 2 with the closest command, and points at catalog --help, not at the misspelling", async () => {
    const r = await run(ROOT, "serch", DEMO, "issue");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe("catalog: unknown command serch; did you mean search? (see catalog --help)");
    expect(r.stderr).not.toMatch(/catalog serch --help/);
  });

  it.each([
    ["search", [DEMO, "create issue", "--limt", "2"], "--limt", "--limit"],
    ["stats", [DEMO, "--windw", "32000"], "--windw", "--window"],
    ["build", ["--if-mising"], "--if-mising", "--if-missing"],
  ])("catalog %s with a misspelled flag exits 2 naming the closest flag, and runs nothing", async (cmd, args, typo, flag) => {
    const r = await run(ROOT, cmd, ...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(`catalog: unknown flag ${typo} for catalog ${cmd}; did you mean ${flag}? (see catalog ${cmd} --help)`);
  });

  it("the real flags, their aliases and --no- forms still run", async () => {
    const r = await run(ROOT, "search", DEMO, "create issue", "--limit", "2", "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).results).toHaveLength(2);
    const s = await run(ROOT, "stats", DEMO, "--window=32000", "--no-json");
    expect(s.code, s.stderr).toBe(0);
  });
});
