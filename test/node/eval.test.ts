// catalog eval: the metrics on a hand-made set where the right answers are known, the baselines'
// exact scoring rules, and clear errors for bad query files.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { oramaDefault, xcodeKeyword } from "../../cli/lib/baselines.ts";
import { evaluate, readQueries, resolveGold, type EvalQuery } from "../../cli/lib/eval.ts";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { rankNames, searchCatalog } from "../../worker/core/search.ts";
import { ROOT, tempDir } from "./helpers.ts";

const tool = (server: string, name: string, description: string, props: Record<string, unknown> = {}): CatalogTool => ({
  name: `mcp__${server}__${name}`,
  server,
  originalName: name,
  description,
  inputSchema: { type: "object", properties: props },
  tokens: { definition: 10, name: 3, short: 2 },
});

const tools = [
  tool("gh", "create_issue", "Open a new issue"),
  tool("gh", "list_issues", "List issues"),
  tool("web", "fetch_page", "Download a web page"),
  tool("fs", "read_file", "Read a file"),
];
const byRef = resolveGold([], tools);

describe("metrics", () => {
  // a fixed ranker: the answers are known, so every metric can be computed by hand
  const ranked: Record<string, string[]> = {
    q1: ["mcp__gh__create_issue", "mcp__gh__list_issues"],
    q2: ["mcp__gh__list_issues", "mcp__fs__read_file", "mcp__web__fetch_page"],
    q3: ["mcp__fs__read_file"],
  };
  const queries: EvalQuery[] = [
    { id: "1", query: "q1", gold: ["gh/create_issue"] },
    {
      id: "2",
      query: "q2",
      gold: ["web/fetch_page", "fs/read_file"],
      gold_groups: [["web/fetch_page"], ["fs/read_file", "gh/create_issue"]],
    },
    { id: "3", query: "q3", gold: ["web/fetch_page"] },
  ];
  const r = evaluate(queries, byRef, (q, k) => ranked[q]!.slice(0, k), [1, 2, 5]);

  it("success@k: any gold in the top k", () => {
    expect(r.metrics["success@1"]).toBe(33.3); // q1 only
    expect(r.metrics["success@2"]).toBe(66.7); // q1, q2 (read_file at 2)
    expect(r.metrics["success@5"]).toBe(66.7);
  });
  it("groupRecall@k: share of gold groups with a member in the top k", () => {
    expect(r.metrics["groupRecall@1"]).toBe(33.3); // 1, 0, 0
    expect(r.metrics["groupRecall@2"]).toBe(50); // 1, 1/2, 0
    expect(r.metrics["groupRecall@5"]).toBe(66.7); // 1, 2/2, 0
  });
  it("mrr@10: reciprocal rank of the first gold", () => {
    expect(r.metrics["mrr@10"]).toBe(0.5); // (1 + 1/2 + 0) / 3
    expect(r.queries).toBe(3);
  });
});

describe("baselines", () => {
  it("xcode-keyword: exact name part 12, partial name part 6, description or schema 2", () => {
    const rank = xcodeKeyword([
      tool("s", "getWeather", "Forecast"),
      tool("s", "weatherstation_list", "Stations"),
      tool("s", "other", "Shows the weather", { city: {} }),
    ]);
    // "weather": exact part of getWeather (12); part of "weatherstation" (6); in description (2)
    expect(rank("weather", 3)).toEqual(["mcp__s__getWeather", "mcp__s__weatherstation_list", "mcp__s__other"]);
    // "city" appears only in the schema of `other` (2); "stations" in a description (2) and no name part
    expect(rank("city", 3)).toEqual(["mcp__s__other"]);
  });
  it("orama-default: Orama's own BM25 with prefix matching (the trap the issue names)", () => {
    const rank = oramaDefault([tool("s", "getaway_booking", "Book a getaway"), tool("s", "fetch", "get a url")]);
    expect(rank("get", 5)).toEqual(expect.arrayContaining(["mcp__s__fetch", "mcp__s__getaway_booking"]));
  });
});

describe("eval errors", () => {
  it("names the missing file, the bad line and unresolvable gold references", async () => {
    const dir = await tempDir();
    await expect(readQueries(join(dir, "nope.jsonl"))).rejects.toThrow(/cannot read queries .*nope\.jsonl \(ENOENT\)/);
    await writeFile(join(dir, "bad.jsonl"), '{"query":"a","gold":[]}\n{oops\n');
    await expect(readQueries(join(dir, "bad.jsonl"))).rejects.toThrow(/bad\.jsonl line 2 is not valid JSON/);
    await writeFile(join(dir, "shape.jsonl"), '{"query":"a"}\n');
    await expect(readQueries(join(dir, "shape.jsonl"))).rejects.toThrow(
      'line 1: needs "query" (string) and "gold" (array of "<server>/<tool>")',
    );
    expect(() => resolveGold([{ id: "1", query: "x", gold: ["gh/create_issue", "gh/nope", "zz/top"] }], tools)).toThrow(
      '2 gold references not in the catalog: "gh/nope", "zz/top"',
    );
  });
});

describe("demo query sets", () => {
  it("resolve in the pinned demo catalog: 150+ model-style short queries, 40+ Chinese ones", async () => {
    const pinned = /^CATALOG = "([^"]+)"/m.exec(await readFile(join(ROOT, "wrangler.toml"), "utf8"))![1]!;
    const { catalog, index } = await readCatalogFile(join(ROOT, "catalogs", pinned));
    const short = await readQueries(join(ROOT, "test/bench/queries/demo-short.jsonl"));
    const zh = await readQueries(join(ROOT, "test/bench/queries/demo-zh.jsonl"));
    expect(short.length).toBeGreaterThanOrEqual(150);
    expect(short.every((q) => q.query.split(/\s+/).length <= 6)).toBe(true);
    expect(zh.length).toBeGreaterThanOrEqual(40);
    expect(zh.every((q) => /\p{Script=Han}/u.test(q.query))).toBe(true);
    const byRef = resolveGold([...short, ...zh], catalog.tools);
    // a floor well under the measured figures (RESULTS.md), so a ranking regression fails here
    const cat = searchCatalog(catalog.tools, index);
    const rank = (q: string, k: number) => rankNames(cat, q, k);
    expect(evaluate(short, byRef, rank).metrics["success@5"]).toBeGreaterThanOrEqual(95);
    expect(evaluate(zh, byRef, rank).metrics["success@5"]).toBeGreaterThanOrEqual(80);
  });
});
