// catalog build against real MCP servers over stdio: pagination, determinism whatever order the
// servers answer in, naming, filters, token counts, and every bad input named in the issue.
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXPOSED_NAME_RE, verifyCatalog } from "../../worker/core/catalog.ts";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig } from "../../cli/lib/config.ts";
import { publishCatalog } from "../../cli/lib/publish.ts";
import { EVAL_DATA, fixture, ROOT, tempDir, writeConfig } from "./helpers.ts";

async function build(mcpServers: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const dir = await tempDir();
  const config = await loadConfig(await writeConfig(dir, { mcpServers, ...extra }));
  return { dir, config, result: await buildCatalog(config, { concurrency: 8 }) };
}

describe("catalog build from stdio servers", () => {
  it("pages through tools/list with nextCursor", async () => {
    const { result } = await build({ paged: fixture("--tools", "25", "--page-size", "7") });
    expect(result.catalog.tools).toHaveLength(25);
    expect(result.catalog.servers).toEqual([
      {
        name: "paged",
        transport: "stdio",
        serverInfo: { name: "fixture", version: "1.2.3" },
        summary: expect.any(String),
        tools: 25,
        tokens: expect.any(Object),
      },
    ]);
    expect(result.catalog.tools[0]).toMatchObject({ name: "mcp__paged__tool_0000", server: "paged", originalName: "tool_0000" });
  });

  it("gives byte-identical files whatever order servers answer in", async () => {
    const fastSlow = await build({ a: fixture("--delay-ms", "0", "--name", "a"), b: fixture("--delay-ms", "600", "--name", "b") });
    const slowFast = await build({ b: fixture("--delay-ms", "0", "--name", "b"), a: fixture("--delay-ms", "600", "--name", "a") });
    expect(fastSlow.result.reports.map((r) => r.source)).toEqual(["a", "b"]);
    expect(slowFast.result.reports.map((r) => r.source)).toEqual(["b", "a"]);
    expect(slowFast.result.text).toBe(fastSlow.result.text);
    expect(slowFast.result.fileName).toBe(fastSlow.result.fileName);
  });

  it("stores exposed names, originals, token counts and a verifiable hash", async () => {
    const { result } = await build({ "my server.v2": fixture("--tools", "2") });
    for (const t of result.catalog.tools) {
      expect(t.name).toMatch(EXPOSED_NAME_RE);
      expect(t.server).toBe("my server.v2");
      expect(t.tokens.definition).toBeGreaterThan(t.tokens.name);
      expect(t.tokens.name).toBeGreaterThan(0);
    }
    expect(result.catalog.tools.map((t) => t.name)).toEqual(["mcp__my_server_v2__tool_0000", "mcp__my_server_v2__tool_0001"]);
    const verified = await verifyCatalog(result.text);
    expect(verified.catalog.hash).toBe(result.catalog.hash);
    expect(result.fileName).toBe(`test@1.0.0.${result.catalog.hash.slice(0, 12)}.json`);
  });

  it("applies include/exclude globs and alwaysLoad", async () => {
    const { result } = await build({
      s: { ...fixture("--tools", "12"), include: ["tool_000*"], exclude: ["tool_0003"], alwaysLoad: ["tool_000?"] },
      t: { ...fixture("--tools", "3"), alwaysLoad: true },
      u: { ...fixture("--tools", "3"), alwaysLoad: ["*1"] },
    });
    const names = result.catalog.tools.filter((t) => t.server === "s").map((t) => t.originalName);
    expect(names).toEqual([
      "tool_0000",
      "tool_0001",
      "tool_0002",
      "tool_0004",
      "tool_0005",
      "tool_0006",
      "tool_0007",
      "tool_0008",
      "tool_0009",
    ]);
    const always = result.catalog.tools.filter((t) => t.alwaysLoad).map((t) => `${t.server}/${t.originalName}`);
    expect(always).toEqual([...names.map((n) => `s/${n}`), "t/tool_0000", "t/tool_0001", "t/tool_0002", "u/tool_0001"]);
  });

  it("resolves names that collide after sanitising, deterministically, with a warning", async () => {
    const { result } = await build({ c: fixture("--tools", "0", "--colliding") });
    const byOriginal = Object.fromEntries(result.catalog.tools.map((t) => [t.originalName, t.name]));
    expect(byOriginal["get.item"]).toBe("mcp__c__get_item");
    expect(byOriginal["get_item"]).toMatch(/^mcp__c__get_item_[0-9a-f]{8}$/);
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0]).toContain("c/get.item, c/get_item all map to mcp__c__get_item");
  });

  it("cuts names over 64 characters with a hash suffix", async () => {
    const dir = await tempDir();
    const long = "a_really_long_tool_name_that_goes_on_and_on_past_the_provider_limit";
    await writeFile(
      join(dir, "tools.json"),
      JSON.stringify([
        { name: long, inputSchema: { type: "object" } },
        { name: `${long}_2`, inputSchema: { type: "object" } },
      ]),
    );
    const config = await loadConfig(await writeConfig(dir, { mcpServers: { longserver: { tools: "tools.json" } } }));
    const { catalog } = await buildCatalog(config);
    const names = catalog.tools.map((t) => t.name);
    expect(new Set(names).size).toBe(2);
    for (const n of names) expect(n).toMatch(/^mcp__longserver__a_really_long.{20,}_[0-9a-f]{8}$/);
    for (const n of names) expect(n.length).toBeLessThanOrEqual(64);
  });
});

describe("catalog build refuses bad servers and writes nothing", () => {
  async function failing(mcpServers: Record<string, unknown>) {
    const dir = await tempDir();
    const config = await loadConfig(await writeConfig(dir, { mcpServers }));
    const err = await publishCatalog(config, { outDir: join(dir, "catalogs") }).then(
      () => null,
      (e: Error) => e,
    );
    expect(await readdir(dir)).toEqual(["toolsearch.config.json"]);
    return err as Error & { code: string };
  }

  it("a server that exits at start", async () => {
    const err = await failing({ good: fixture(), crashy: fixture("--exit-at-start") });
    expect(err.code).toBe("server_failed");
    expect(err.message).toMatch(/^server "crashy" failed: .*Connection closed.*stderr: fixture: missing API key/);
  });

  it("a server that hangs, after its timeoutMs", async () => {
    const started = Date.now();
    const err = await failing({ stuck: { ...fixture("--hang"), timeoutMs: 1500 } });
    expect(err.message).toContain('server "stuck" failed: no answer within 1500 ms');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("a tool without a valid inputSchema", async () => {
    const err = await failing({ bad: fixture("--bad-schema") });
    expect(err.code).toBe("invalid_tool");
    expect(err.message).toBe('server "bad": tool "broken" has no valid inputSchema (need an object with "type": "object")');
  });

  it("a command that does not exist", async () => {
    const err = await failing({ ghost: { command: "/nonexistent/mcp-server" } });
    expect(err.message).toMatch(/^server "ghost" failed: .*ENOENT/);
  });

  it("an unreadable recorded file", async () => {
    const err = await failing({ rec: { tools: "missing.jsonl" } });
    expect(err.message).toMatch(/^server "rec" failed: cannot read recorded file .*missing\.jsonl \(ENOENT\)/);
  });

  it("names every failed server when several fail", async () => {
    const err = await failing({ one: fixture("--exit-at-start"), two: { tools: "nope.json" } });
    expect(err.message).toMatch(/^2 servers failed: "one" \(.*\); "two" \(.*\); no catalog written$/);
  });
});

describe("recorded tool lists", () => {
  const tool = (name: string) => ({ name, description: `does ${name}`, inputSchema: { type: "object", properties: {} } });

  it("reads a tools/list result, a JSON array and JSONL with per-row servers", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "list.json"), JSON.stringify({ tools: [tool("a"), tool("b")] }));
    await writeFile(join(dir, "array.json"), JSON.stringify([tool("c")]));
    await writeFile(
      join(dir, "rows.jsonl"),
      [{ server: "x y", ...tool("d") }, { server: "z", ...tool("e") }, tool("f")].map((r) => JSON.stringify(r)).join("\n") + "\n",
    );
    const config = await loadConfig(
      await writeConfig(dir, {
        mcpServers: { list: { tools: "list.json" }, array: { tools: "array.json" }, rows: { tools: "rows.jsonl" } },
      }),
    );
    const { catalog } = await buildCatalog(config);
    expect(catalog.servers.map((s) => [s.name, s.tools, s.transport])).toEqual([
      ["array", 1, "recorded"],
      ["list", 2, "recorded"],
      ["rows", 1, "recorded"],
      ["x y", 1, "recorded"],
      ["z", 1, "recorded"],
    ]);
    expect(catalog.tools.map((t) => `${t.server}/${t.originalName} ${t.name}`)).toContain("x y/d mcp__x_y__d");
  });

  it("names the line of a bad JSONL row", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "rows.jsonl"), `${JSON.stringify(tool("a"))}\n{not json\n`);
    const config = await loadConfig(await writeConfig(dir, { mcpServers: { rows: { tools: "rows.jsonl" } } }));
    await expect(buildCatalog(config)).rejects.toThrow(/server "rows" failed: recorded file .*rows\.jsonl line 2 is not valid JSON/);
  });

  it("builds the LiveMCPBench catalog (525 tools, 69 servers) from the eval set", async () => {
    const dir = await tempDir();
    const config = await loadConfig(
      await writeConfig(dir, { mcpServers: { livemcpbench: { tools: join(EVAL_DATA, "livemcpbench/tools.jsonl") } } }),
    );
    const { catalog, text } = await buildCatalog(config);
    expect(catalog.tools).toHaveLength(525);
    expect(catalog.servers).toHaveLength(69);
    const rows = (await readFile(join(EVAL_DATA, "livemcpbench/tools.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const refs = new Set(catalog.tools.map((t) => `${t.server}/${t.originalName}`));
    for (const r of rows) expect(refs.has(`${r.server}/${r.name}`)).toBe(true);
    for (const t of catalog.tools) expect(t.name).toMatch(EXPOSED_NAME_RE);
    await expect(verifyCatalog(text)).resolves.toBeTruthy();
  });
});
