// Listing token counts without a tokenizer: for the pinned demo catalog and LiveMCPBench (525
// tools, 69 servers), in both encodings, the stored pieces of every form add up to exactly what
// js-tiktoken counts in the rendered section, for the whole catalog and for arbitrary subsets (a
// tenant's allowed tools); short names ending in punctuation are the documented, bounded excess.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig, parseConfig } from "../../cli/lib/config.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { tokenCounter } from "../../cli/lib/tokens.ts";
import type { Catalog } from "../../worker/core/catalog.ts";
import { chooseListing, listingBudget } from "../../worker/core/listing-choice.ts";
import { LISTING_FORMS, listingSection, listingTokens, serverEntries, toolEntries } from "../../worker/core/listing.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { openaiTool, TOOL_SEARCH_TOOL, toolsBytes } from "../../worker/core/prompt.ts";
import { EVAL_DATA, ROOT, tempDir, writeConfig } from "./helpers.ts";

let demo: Catalog;
const built: Record<string, Catalog> = {};

beforeAll(async () => {
  const pinned = /^CATALOG = "([^"]+)"/m.exec(await readFile(join(ROOT, "wrangler.toml"), "utf8"))![1]!;
  demo = (await readCatalogFile(join(ROOT, "catalogs", pinned))).catalog;
  const dir = await tempDir();
  for (const encoding of ["o200k_base", "cl100k_base"]) {
    const config = await loadConfig(
      await writeConfig(dir, { encoding, mcpServers: { livemcpbench: { tools: join(EVAL_DATA, "livemcpbench/tools.jsonl") } } }),
    );
    built[encoding] = (await buildCatalog(config)).catalog;
  }
});

async function expectExact(catalog: Catalog, subsets: number) {
  const count = await tokenCounter(catalog.build.encoding);
  const servers = serverEntries(catalog.servers);
  const deferrable = catalog.tools.filter((t) => !t.alwaysLoad);
  const check = (tools: typeof deferrable) => {
    const entries = toolEntries(tools);
    for (const form of LISTING_FORMS)
      expect(listingTokens(form, entries, servers, catalog.listing.headers), `${catalog.name} ${form} of ${tools.length}`).toBe(
        count(listingSection(form, entries, servers)),
      );
  };
  check(deferrable);
  for (const form of LISTING_FORMS)
    expect(catalog.listing.sections[form]).toBe(listingTokens(form, toolEntries(deferrable), servers, catalog.listing.headers));
  fc.assert(fc.property(fc.subarray(deferrable, { minLength: 1 }), check), { numRuns: subsets });
}

describe("listing token pieces add up exactly", () => {
  it("the pinned demo catalog: whole and 40 random subsets", async () => expectExact(demo, 40));
  it("LiveMCPBench in o200k_base and cl100k_base: whole and 15 random subsets each", async () => {
    for (const c of Object.values(built)) await expectExact(c, 15);
  });

  it("a short name ending in '-' is counted at most one token over, never under, and the build says so", async () => {
    const dir = await tempDir();
    const tool = (name: string) => ({ name, description: "d", inputSchema: { type: "object" } });
    await writeFile(join(dir, "tools.json"), JSON.stringify([tool("export-"), tool("plain"), tool("x-y-")]));
    const { catalog, warnings } = await buildCatalog(
      parseConfig({ name: "t", version: "1.0.0", mcpServers: { s: { tools: "tools.json" } } }, dir),
    );
    const count = await tokenCounter(catalog.build.encoding);
    const real = count(listingSection("grouped", toolEntries(catalog.tools), serverEntries(catalog.servers)));
    expect(catalog.listing.sections.grouped - real).toBeGreaterThan(0);
    expect(catalog.listing.sections.grouped - real).toBeLessThanOrEqual(2);
    expect(warnings).toEqual([
      `the grouped listing is ${real} tokens; its stored pieces add up to ${catalog.listing.sections.grouped} (a short name ending in punctuation)`,
    ]);
  });
});

describe("the demo catalog against the targets", () => {
  it("grouped at most 60% of names, servers at most 40 tokens per server, none at most 300 with toolSearch", async () => {
    const s = demo.listing.sections;
    expect(s.grouped / s.names).toBeLessThanOrEqual(0.6);
    expect(s.servers / demo.servers.length).toBeLessThanOrEqual(40);
    const count = await tokenCounter(demo.build.encoding);
    expect(s.none + count(toolsBytes([openaiTool(TOOL_SEARCH_TOOL)]))).toBeLessThanOrEqual(300);
  });

  it("auto keeps names for the demo catalog under a 128k window, and drops them where they do not fit", () => {
    const pick = (window: number) =>
      chooseListing("auto", demo.listing.sections, listingBudget(DEFAULT_POLICY, { model: "x", contextWindow: window })).form;
    expect(pick(128_000)).toBe("names");
    expect(pick(32_000)).toBe("servers");
    expect(pick(8_000)).toBe("none");
  });
});

describe("listing budget", () => {
  it("is floor(window x share), exact for shares that floats cannot hold", () => {
    for (const [window, share, tokens] of [
      [8350, 0.02, 167],
      [128_000, 0.02, 2560],
      [100_000, 0.07, 7000],
      [1000, 0.001, 1],
    ] as const) {
      expect(listingBudget({ ...DEFAULT_POLICY, listingBudget: share }, { model: "gpt-4o", contextWindow: window }).tokens).toBe(tokens);
    }
  });
});
