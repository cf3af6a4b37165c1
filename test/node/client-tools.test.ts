// Client-declared tools in the pure core (worker/core/client-tools.ts) and the per-isolate cache
// (worker/chat/tool-set-cache.ts): the token estimate against the tokenizer's counts, what the policy
// keeps and defers, byte-stable sections, one search over client and catalog tools (the client's
// tool wins a shared name), and a cache that hits on equal tools and stays within its bytes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { clientToolCacheStats, clientToolSet, CLIENT_TOOL_CACHE_BYTES } from "../../worker/chat/tool-set-cache.ts";
import { canonicalJson } from "../../worker/core/canonical.ts";
import type { OpenAITool } from "../../worker/core/chat.ts";
import {
  CLIENT_SECTION_HEADER,
  planClientTools,
  TOKENS_PER_CHAR,
  withClientTools,
  type PlanContext,
} from "../../worker/core/client-tools.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { listingHeader } from "../../worker/core/listing.ts";
import { openaiTool, toolDefinition } from "../../worker/core/prompt.ts";
import { closestNames, parseQuery, rankNames, runSearch, searchCatalog, type SearchCatalog } from "../../worker/core/search.ts";
import { checkArguments } from "../../worker/core/tool-args.ts";
import { rankingIndex } from "../../worker/core/tool-index.ts";
import { pinnedDemo } from "../bench/results.ts";
import { ROOT } from "./helpers.ts";

let demo: SearchCatalog;
let declared: OpenAITool[];
let tokens: Map<string, number>;

beforeAll(async () => {
  const { catalog, index } = await readCatalogFile(join(ROOT, "catalogs", await pinnedDemo()));
  demo = searchCatalog(catalog.tools, index);
  // the demo tools as a client declares them: its servers' own names
  declared = catalog.tools.map((t) => openaiTool({ ...toolDefinition(t), name: t.originalName }) as OpenAITool);
  tokens = new Map(catalog.tools.map((t) => [t.originalName, t.tokens.definition]));
});

const ctx = (over: Partial<PlanContext> = {}): PlanContext => ({
  policy: {
    ...DEFAULT_POLICY,
    profiles: { default: {}, support: { coreTools: ["create_issue", "mcp__github__get_issue"] }, sub: { subAgent: true, tools: [] } },
  },
  model: "gpt-4o",
  profile: "default",
  deferral: "auto",
  catalogLoaded: ["mcp__memory__search_nodes"],
  catalogSection: "# Deferred tools\n...\n",
  catalogNames: demo.byName,
  ...over,
});

describe("token estimate", () => {
  it("is the demo catalog's tokens per character of canonical JSON, within 1%, and its sum within 2%", () => {
    const chars = demo.tools.reduce((n, t) => n + canonicalJson(openaiTool(toolDefinition(t))).length, 0);
    const counted = demo.tools.reduce((n, t) => n + t.tokens.definition, 0);
    expect(Math.abs(TOKENS_PER_CHAR - counted / chars) / (counted / chars)).toBeLessThan(0.01);
    expect(Math.abs(chars * TOKENS_PER_CHAR - counted) / counted).toBeLessThan(0.02);
  });
});

describe("client index", () => {
  it("is built without Orama and ranks exactly as the catalog's own index (240 + 62 demo queries)", async () => {
    const direct = rankingIndex(demo.tools) as unknown as { data: { index: Record<string, unknown> } };
    const saved = demo.index as unknown as { data: { index: Record<string, unknown> } };
    for (const part of ["frequencies", "fieldLengths", "avgFieldLength"])
      expect(JSON.parse(JSON.stringify(direct.data.index[part]))).toEqual(saved.data.index[part]);
    const rebuilt = searchCatalog(demo.tools, direct as never);
    const queries = ["demo-short", "demo-zh"].flatMap((f) =>
      readFileSync(join(ROOT, `test/bench/queries/${f}.jsonl`), "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { query: string }).query),
    );
    expect(queries.length).toBe(302);
    for (const q of queries) expect(rankNames(rebuilt, q, 10), q).toEqual(rankNames(demo, q, 10));
  });
});

describe("planClientTools", () => {
  it("defers the demo tools for gpt-4o, keeping profile coreTools, x-toolsearch-core names and tools the catalog loads", async () => {
    const estimated = (await clientToolSet(declared)).catalog.tools.reduce((n, t) => n + t.tokens.definition, 0);
    const counted = [...tokens.values()].reduce((a, b) => a + b, 0);
    expect(Math.abs(estimated - counted) / counted).toBeLessThan(0.03);
    const set = await clientToolSet([...declared, openaiTool(toolDefinition(demo.byName.get("mcp__memory__search_nodes")!)) as OpenAITool]);
    const plan = planClientTools(set, ["read_graph"], ctx({ profile: "support" }));
    // in the client's order: demo tools are sorted by exposed name, github before memory
    expect(plan.kept).toEqual(["create_issue", "read_graph", "mcp__memory__search_nodes"]);
    expect(plan.deferred).toBe(192 - 3);
    expect(plan.reason).toMatch(
      /^189 of 192 client tools deferred: deferrable tools \(\d+ tokens\) exceed 10% of gpt-4o's 128000-token context \(estimated tokens\)$/,
    );
    const lines = plan.section.split("\n");
    expect(lines[0]).toBe(CLIENT_SECTION_HEADER.trim());
    expect(lines.slice(1, -1)).toEqual(
      declared
        .map((t) => t.function.name)
        .filter((n) => !plan.kept.includes(n))
        .sort(),
    );
    // byte-stable: the same tools in the same order give the same plan
    expect(planClientTools(await clientToolSet(set.tools), ["read_graph"], ctx({ profile: "support" }))).toEqual(plan);
  });

  it("brings the deferred-tools header when the catalog side lists nothing, and leaves catalog names to the catalog's list", async () => {
    const set = await clientToolSet([
      ...declared.slice(0, 150),
      openaiTool(toolDefinition(demo.byName.get("mcp__github__create_issue")!)) as OpenAITool,
    ]);
    const alone = planClientTools(set, [], ctx({ catalogSection: "", catalogLoaded: [] }));
    expect(alone.section.startsWith(listingHeader("names"))).toBe(true);
    expect(alone.section).not.toContain("mcp__github__create_issue\n");
    expect(alone.deferred).toBe(151);
  });

  it("keeps everything below the threshold, for sub-agent profiles, with deferral off, and for models that cannot search", async () => {
    const few = await clientToolSet(declared.slice(0, 5));
    const all = await clientToolSet(declared);
    for (const [set, over] of [
      [few, {}],
      [all, { profile: "sub" }],
      [all, { deferral: "off" }],
      [all, { model: "gpt-4.1-nano" }],
    ] as const) {
      const plan = planClientTools(set, [], ctx(over));
      expect(plan).toMatchObject({ deferred: 0, section: "", kept: set.tools.map((t) => t.function.name) });
      expect(plan.reason).toMatch(/^all \d+ client tools loaded: /);
    }
  });
});

describe("one search over client and catalog tools", () => {
  it("ranks client tools with the catalog's ranking and merges both; select: resolves the client's first", async () => {
    const mine: OpenAITool = {
      type: "function",
      function: {
        name: "mcp__github__create_issue",
        description: "File a ticket in the CLIENT's tracker",
        parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
      },
    };
    const set = await clientToolSet([...declared.slice(0, 40), mine]);
    const union = withClientTools(demo, set);
    // the default top 5: the catalog's tools carry search text and the client's do not, which
    // RANKING.textless evens out (at 1, navigate_page fell to 6th behind text-bearing catalog tools)
    const top = runSearch(union, parseQuery("navigate browser page", undefined));
    expect(top.kind).toBe("keywords");
    const matched = top.kind === "keywords" ? top.matches.map((m) => m.name) : [];
    // chrome-devtools' navigate_page (client, among the first 40) and playwright's (catalog)
    expect(matched).toContain("navigate_page");
    expect(matched).toContain("mcp__playwright__browser_navigate");
    expect(new Set(matched).size).toBe(matched.length);
    const sel = runSearch(union, parseQuery("select:mcp__github__create_issue,navigate_page,mcp__memory__read_graph", undefined));
    expect(sel.kind === "select" && sel.found.map((t) => [t.name, t.description.slice(0, 20)])).toEqual([
      ["mcp__github__create_issue", "File a ticket in the"],
      ["navigate_page", declared.find((t) => t.function.name === "navigate_page")!.function.description!.slice(0, 20)],
      ["mcp__memory__read_graph", demo.byName.get("mcp__memory__read_graph")!.description.slice(0, 20)],
    ]);
    const byWords = runSearch(union, parseQuery("ticket tracker", undefined), 3);
    expect(byWords.kind === "keywords" && byWords.matches[0]).toMatchObject({
      name: "mcp__github__create_issue",
      description: "File a ticket in the CLIENT's tracker",
    });
    expect(closestNames(union, "navigate_pag")).toContain("navigate_page");
  });
});

describe("argument checks on client schemas", () => {
  it("pass a call through when the schema is one the validator cannot use, and still check the usable ones", () => {
    for (const schema of [{ $ref: "#/nowhere" }, { type: "object", properties: { a: { type: "string", pattern: "([" } } }]) {
      expect(checkArguments(schema, '{"a":"b"}')).toEqual({ ok: true, args: { a: "b" } });
    }
    expect(checkArguments({ type: "object", required: ["a"] }, "{}")).toMatchObject({ ok: false });
  });
});

describe("client tool cache", () => {
  it("indexes equal tools once (key order does not matter) and stays within its bytes as sets come and go", async () => {
    const a = await clientToolSet(declared.slice(0, 30));
    const reordered = declared.slice(0, 30).map(
      (t) =>
        ({
          function: { parameters: t.function.parameters, name: t.function.name, description: t.function.description },
          type: "function",
        }) as OpenAITool,
    );
    expect(await clientToolSet(reordered)).toBe(a);
    // distinct sets of 191 tools each, until twice the budget was built
    const version = (i: number) =>
      declared.map((t) => ({ ...t, function: { ...t.function, description: `${t.function.description} v${i}` } }));
    const built = [await clientToolSet(version(0))];
    while (built.length * built[0]!.bytes < 2 * CLIENT_TOOL_CACHE_BYTES) {
      built.push(await clientToolSet(version(built.length)));
      expect(clientToolCacheStats().bytes).toBeLessThanOrEqual(CLIENT_TOOL_CACHE_BYTES);
    }
    // the newest is still cached, the oldest was evicted (built again: a new object)
    expect(await clientToolSet(version(built.length - 1))).toBe(built.at(-1));
    expect(await clientToolSet(version(0))).not.toBe(built[0]);
  });

  it("finds a set by the raw tools text it came with; other text of the same tools reuses it; its index is built on the first search (issue 38)", async () => {
    const tools = declared.map((t) => ({ ...t, function: { ...t.function, description: `${t.function.description} raw` } }));
    const compact = JSON.stringify(tools);
    const set = await clientToolSet(tools, { surface: "chat", raw: compact });
    // built without its ranking index: the first search builds it, once
    expect(Object.getOwnPropertyDescriptor(set.catalog, "index")?.get).toBeTypeOf("function");
    expect(set.catalog.index).toBe(set.catalog.index);
    expect(rankNames(set.catalog, "create an issue", 1)).toEqual([
      tools.find((t) => t.function.name.endsWith("create_issue"))!.function.name,
    ]);
    expect(await clientToolSet(JSON.parse(compact) as OpenAITool[], { surface: "chat", raw: compact })).toBe(set);
    // the same tools sent with spaces: another key, the same set (by hash), not built again
    expect(await clientToolSet(tools, { surface: "chat", raw: JSON.stringify(tools, null, 1) })).toBe(set);
    expect(await clientToolSet(tools)).toBe(set);
  });
});
