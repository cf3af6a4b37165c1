// Search text in `catalog build` and in the ranking: a query found only through search text (the
// file's, or a server's `_meta["anthropic/searchHint"]`) ranks its tool in the top 5; the same
// inputs give the same bytes; token counts and totals are untouched by it; a query that is a
// tool's name finds it first; Chinese and mixed queries do as well as English ones on the demo.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig } from "../../cli/lib/config.ts";
import { evaluate, readQueries, resolveGold } from "../../cli/lib/eval.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { catalogStats } from "../../cli/lib/stats.ts";
import { catalogTotals } from "../../worker/core/summary.ts";
import { rankNames, runSearch, parseQuery, searchCatalog, type SearchCatalog } from "../../worker/core/search.ts";
import { restoreIndex } from "../../worker/core/tool-index.ts";
import type { Catalog } from "../../worker/core/catalog.ts";
import { pinnedDemo } from "../bench/results.ts";
import { ROOT, tempDir } from "./helpers.ts";

const TEXT = {
  "shop/track_shipment": { queries: ["has my package left the warehouse yet"], keywords: ["courier", "whereabouts"] },
  "shop/apply_coupon": { when: "Use when a shopper has a voucher code for a discount.", toolHash: "0000000000000000" },
};

async function shop(withText: boolean): Promise<string> {
  const dir = await tempDir("toolsearch-text-");
  const { tools } = JSON.parse(await readFile(join(ROOT, "test/fixtures/shop-tools.json"), "utf8")) as {
    tools: Array<Record<string, unknown>>;
  };
  // the server's own hint, as Claude Code reads it
  tools.find((t) => t.name === "get_customer")!._meta = { "anthropic/searchHint": "loyalty points balance" };
  await writeFile(join(dir, "tools.json"), JSON.stringify({ tools }));
  await writeFile(join(dir, "search-text.json"), JSON.stringify(TEXT));
  const config = {
    name: "shop",
    version: "1.0.0",
    ...(withText ? { searchText: "search-text.json" } : {}),
    mcpServers: { shop: { tools: "tools.json" } },
  };
  await writeFile(join(dir, "toolsearch.config.json"), JSON.stringify(config));
  return join(dir, "toolsearch.config.json");
}

const catalogOf = (c: Catalog): SearchCatalog => searchCatalog(c.tools, restoreIndex(c.index, c.tools));

describe("search text in catalog build", () => {
  let plain: Awaited<ReturnType<typeof buildCatalog>>;
  let text: Awaited<ReturnType<typeof buildCatalog>>;
  beforeAll(async () => {
    plain = await buildCatalog(await loadConfig(await shop(false)));
    text = await buildCatalog(await loadConfig(await shop(true)));
  });

  it("finds a tool by words only its search text or its server's hint holds", () => {
    for (const [query, tool] of [
      ["has my package left the warehouse", "mcp__shop__track_shipment"],
      ["courier whereabouts", "mcp__shop__track_shipment"],
      ["loyalty points", "mcp__shop__get_customer"],
    ]) {
      expect(rankNames(catalogOf(text.catalog), query!, 5), query).toContain(tool);
    }
    // the hint is the server's: indexed with or without a search-text file
    expect(rankNames(catalogOf(plain.catalog), "loyalty points", 5)).toContain("mcp__shop__get_customer");
    for (const query of ["has my package left the warehouse", "courier whereabouts"])
      expect(rankNames(catalogOf(plain.catalog), query, 5)).not.toContain("mcp__shop__track_shipment");
  });

  it("leaves a stale entry out and says so", () => {
    expect(text.warnings).toContain(
      "search text: 1 stale entry (the tool changed since it was written; not indexed, run catalog enrich): shop/apply_coupon",
    );
    expect(text.catalog.tools.find((t) => t.originalName === "apply_coupon")!.search).toBeUndefined();
    expect(rankNames(catalogOf(text.catalog), "voucher", 5)).not.toContain("mcp__shop__apply_coupon");
  });

  it("gives the same bytes for the same inputs", async () => {
    const again = await buildCatalog(await loadConfig(await shop(true)));
    expect(again.text).toBe(text.text);
    expect(again.fileName).toBe(text.fileName);
    expect(text.fileName).not.toBe(plain.fileName);
  });

  it("changes no token count: per tool, listing sections, catalog stats and GET /v1/catalog's totals", async () => {
    expect(text.catalog.tools.map((t) => t.tokens)).toEqual(plain.catalog.tools.map((t) => t.tokens));
    expect(JSON.stringify(text.catalog.listing)).toBe(JSON.stringify(plain.catalog.listing));
    expect(JSON.stringify(catalogTotals(text.catalog.tools))).toBe(JSON.stringify(catalogTotals(plain.catalog.tools)));
    const stats = async (c: Catalog) => JSON.stringify({ ...(await catalogStats(c)), hash: "" });
    expect(await stats(text.catalog)).toBe(await stats(plain.catalog));
  });
});

describe("the demo catalog's search", () => {
  let demo: SearchCatalog;
  beforeAll(async () => {
    const { catalog, index } = await readCatalogFile(join(ROOT, "catalogs", await pinnedDemo()));
    demo = searchCatalog(catalog.tools, index);
  });

  it("ships with search text for every tool", () => {
    expect(demo.tools.filter((t) => t.search?.queries?.length).length).toBe(demo.tools.length);
  });

  it("ranks a tool first when the query is its exposed or original name, in any case", () => {
    for (const t of demo.tools) {
      expect(rankNames(demo, t.name, 1), t.name).toEqual([t.name]);
      expect(rankNames(demo, t.name.toUpperCase(), 1)).toEqual([t.name]);
      const same = demo.tools.filter((o) => o.originalName === t.originalName).length;
      expect(rankNames(demo, t.originalName.toUpperCase(), same), t.originalName).toContain(t.name);
    }
    // a pasted exposed name is that tool, not a server to browse
    expect(runSearch(demo, parseQuery("mcp__github__create_issue", undefined)).kind).toBe("keywords");
    expect(runSearch(demo, parseQuery("mcp__github", undefined)).kind).toBe("browse");
  });

  it("answers Chinese and mixed queries as well as English ones", async () => {
    const score = async (file: string) => {
      const queries = await readQueries(join(ROOT, "test/bench/queries", file));
      return evaluate(queries, resolveGold(queries, demo.tools), (q, k) => rankNames(demo, q, k)).metrics;
    };
    const [en, zh] = [await score("demo-short.jsonl"), await score("demo-zh.jsonl")];
    expect(zh["success@5"]).toBeGreaterThanOrEqual(en["success@5"]! - 2);
    for (const [query, tool] of [
      ["github 创建 issue", "mcp__github__create_issue"],
      ["思维导图 和 知识图谱: 新建实体", "mcp__memory__create_entities"],
      ["关闭浏览器标签页", "mcp__chrome-devtools__close_page"],
    ]) {
      expect(rankNames(demo, query!, 3), query).toContain(tool);
    }
  });
});
