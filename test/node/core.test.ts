// worker/core pieces the CLI relies on: canonical JSON, exposed names, the index round trip,
// and the rule that worker/ never reaches for node:* or cli/.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { EXPOSED_NAME_RE } from "../../worker/core/catalog.ts";
import { assignExposedNames, exposedName } from "../../worker/core/names.ts";
import { translateTerms } from "../../worker/core/glossary.ts";
import { topKeywords } from "../../worker/core/rank.ts";
import { parseQuery, rankKeywords, rankNames, searchCatalog } from "../../worker/core/search.ts";
import { CJK_RUN, foldPlural, splitIdentifier, tokenize } from "../../worker/core/search-text.ts";
import { buildIndex, restoreIndex } from "../../worker/core/tool-index.ts";
import { ROOT } from "./helpers.ts";

describe("canonicalJson", () => {
  it("sorts keys at every depth, drops undefined members and has no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: "é" }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"x":"é","z":1}]},"b":1}',
    );
  });
  it("gives equal bytes for equal values built in different key orders", () => {
    expect(canonicalJson({ x: 1, y: [1, 2] })).toBe(canonicalJson(JSON.parse('{"y":[1,2],"x":1}')));
  });
  it("refuses values JSON cannot hold", () => {
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/not valid JSON/);
  });
});

describe("exposed names", () => {
  it.each([
    ["github", "create_issue", "mcp__github__create_issue"],
    ["my.server", "get.item", "mcp__my_server__get_item"],
    ["Weather API", "Get Current Weather!", "mcp__Weather_API__Get_Current_Weather"],
    ["数据", "查询", "mcp__x__x"],
  ])("%s / %s -> %s", (server, tool, expected) => {
    expect(exposedName(server, tool)).toBe(expected);
  });

  it("always fits ^[a-zA-Z0-9_-]{1,64}$, with distinct hashes for distinct long names", () => {
    const a = exposedName("server", "x".repeat(100));
    const b = exposedName("server", `${"x".repeat(99)}y`);
    for (const n of [a, b]) expect(n).toMatch(EXPOSED_NAME_RE);
    expect(a).not.toBe(b);
  });

  it("settles collisions by the originals' order, not the input order", () => {
    const tools = [
      { server: "s", originalName: "a-b" },
      { server: "s", originalName: "a b" },
      { server: "s", originalName: "a.b" },
    ];
    const one = assignExposedNames(tools);
    const two = assignExposedNames([...tools].reverse());
    expect(one.named).toEqual(two.named);
    expect(one.named.find((t) => t.originalName === "a b")!.name).toBe("mcp__s__a_b");
    expect(new Set(one.named.map((t) => t.name)).size).toBe(3);
    expect(one.warnings).toEqual(two.warnings);
  });
});

describe("search text and index", () => {
  it("splits snake, kebab, dotted and camelCase identifiers into words", () => {
    expect(splitIdentifier("getHTTPResponse_v2-list.items")).toBe("get HTTP Response v2 list items");
    expect(tokenize("mcp__github__create_issue: Create an Issue")).toEqual(["mcp", "github", "create", "issue", "create", "an", "issue"]);
  });

  it("restores a saved index that finds the same tools, and refuses one that does not fit", () => {
    const tools = ["create_issue", "list_pull_requests", "take_screenshot"].map((n) => ({
      name: `mcp__t__${n}`,
      server: "t",
      originalName: n,
      description: `Tool ${n}`,
      inputSchema: { type: "object" },
    }));
    const saved = JSON.parse(JSON.stringify(buildIndex(tools)));
    const db = restoreIndex(saved, tools);
    const ranked = rankKeywords(
      searchCatalog(
        tools.map((t) => ({ ...t, tokens: { definition: 1, name: 1, short: 1 } })),
        db,
      ),
      ["screenshot"],
    );
    expect([...ranked.keys()]).toEqual(["mcp__t__take_screenshot"]);
    expect(() => restoreIndex(saved, tools.slice(1))).toThrow("index holds 3 documents for 2 tools");
    expect(() => restoreIndex(saved, [tools[1]!, tools[0]!, tools[2]!])).toThrow(
      'index document 1 does not match tool "mcp__t__list_pull_requests"',
    );
  });
});

describe("query expansion", () => {
  it("abbreviations find the words tools use, below words the query typed", () => {
    const tools = [
      ["create_repository", "Create a new GitHub repository"],
      ["create_pull_request", "Open a pull request"],
      ["list_directory", "List a folder"],
      ["create_repo_webhook", "Add a webhook to a repo"],
    ].map(([n, d]) => ({
      name: `mcp__t__${n}`,
      server: "t",
      originalName: n!,
      description: d!,
      inputSchema: { type: "object" },
      tokens: { definition: 1, name: 1, short: 1 },
    }));
    const cat = searchCatalog(tools, restoreIndex(JSON.parse(JSON.stringify(buildIndex(tools))), tools));
    expect(rankNames(cat, "create PR", 1)).toEqual(["mcp__t__create_pull_request"]);
    expect(rankNames(cat, "list dir", 1)).toEqual(["mcp__t__list_directory"]);
    // "repo" typed: the tool that says "repo" ranks above the one that says "repository"
    expect(rankNames(cat, "create repo", 2)).toEqual(["mcp__t__create_repo_webhook", "mcp__t__create_repository"]);
  });
});

/** A searchable catalog of [name, description] pairs on one server. */
function miniCatalog(pairs: string[][]) {
  const tools = pairs.map(([n, d]) => ({
    name: `mcp__t__${n}`,
    server: "t",
    originalName: n!,
    description: d!,
    inputSchema: { type: "object" },
    tokens: { definition: 1, name: 1, short: 1 },
  }));
  return searchCatalog(tools, restoreIndex(JSON.parse(JSON.stringify(buildIndex(tools))), tools));
}

describe("words", () => {
  it("CJK runs become character bigrams, split from Latin words; Hangul keeps its spaced words", () => {
    expect(tokenize("在浏览器里截图")).toEqual(["在浏", "浏览", "览器", "器里", "里截", "截图"]);
    expect(tokenize("读取json文件, 八")).toEqual(["读取", "json", "文件", "八"]);
    expect(tokenize("データ")).toEqual(["デー", "ータ"]);
    expect(tokenize("파일 검색")).toEqual(["파일", "검색"]);
  });

  it("folds plurals only (Harman's S rules), not 'news', '-ss', '-us', '-is'", () => {
    const folded = ["entities", "commits", "files", "shoes", "indexes", "news", "class", "status", "analysis", "v2s", "get"].map(
      foldPlural,
    );
    expect(folded).toEqual(["entity", "commit", "file", "shoe", "indexe", "news", "class", "status", "analysis", "v2s", "get"]);
    expect(tokenize("list_commits")).toEqual(["list", "commit"]);
  });

  it("keeps a camelCase word whole too, as people type it", () => {
    expect(tokenize("Evaluate JavaScript")).toEqual(["evaluate", "java", "script", "javascript"]);
    expect(tokenize("get_file_contents")).toEqual(["get", "file", "content"]);
  });

  it("drops request phrasing and single letters from task-style queries", () => {
    expect(parseQuery("Could you help me create an issue? I'm stuck", undefined)).toMatchObject({ terms: ["create", "issue", "stuck"] });
  });
});

describe("glossary", () => {
  it("finds the longest Chinese term at each position and gives its English", () => {
    expect(translateTerms("创建拉取请求", CJK_RUN)).toEqual({ words: ["create", "pull request"], alternatives: [] });
    // 数据库 (database), not 数据 (data) + 库 (library); 的/中 start no entry and are skipped
    expect(translateTerms("删除数据库中的集合", CJK_RUN)).toEqual({
      words: ["delete", "database", "collection"],
      alternatives: ["remove"],
    });
    expect(translateTerms("no chinese here", CJK_RUN)).toEqual({ words: [], alternatives: [] });
  });

  it("a Chinese query finds the English-described tool, and the Chinese-described one by bigrams", () => {
    const cat = miniCatalog([
      ["take_screenshot", "Take a screenshot of the browser page"],
      ["create_pull_request", "Open a new pull request"],
      ["list_issues", "List issues in a repository"],
      ["weather_now", "查询城市的实时天气"],
    ]);
    expect(parseQuery("在浏览器里截图", undefined)).toMatchObject({ terms: expect.arrayContaining(["browser", "screenshot", "截图"]) });
    expect(rankNames(cat, "在浏览器里截图", 1)).toEqual(["mcp__t__take_screenshot"]);
    expect(rankNames(cat, "创建拉取请求", 1)).toEqual(["mcp__t__create_pull_request"]);
    expect(rankNames(cat, "列出仓库的问题", 1)).toEqual(["mcp__t__list_issues"]);
    expect(rankNames(cat, "北京实时天气", 1)).toEqual(["mcp__t__weather_now"]);
  });
});

describe("ranking", () => {
  it("a plural in the tool's name still matches ('commit history' -> list_commits)", () => {
    const cat = miniCatalog([
      ["list_commits", "Get list of commits of a branch"],
      ["push_files", "Push files in a single commit"],
    ]);
    expect(rankNames(cat, "commit history", 1)).toEqual(["mcp__t__list_commits"]);
  });

  it("topKeywords keeps exactly the head of the full ranking, ties by name", () => {
    const cat = miniCatalog(Array.from({ length: 40 }, (_, i) => [`tool_${i}`, i % 3 ? "read a file" : "read a file from disk"]));
    const full = [...rankKeywords(cat, ["read", "file", "disk"])].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const depth of [1, 5, 14, 39, 60]) expect(topKeywords(cat, ["read", "file", "disk"], depth)).toEqual(full.slice(0, depth));
  });
});

describe("layering", () => {
  it("worker/ imports neither node:* nor cli/", async () => {
    const files = (await readdir(join(ROOT, "worker"), { recursive: true })).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const text = await readFile(join(ROOT, "worker", f), "utf8");
      expect(text, f).not.toMatch(/from\s+["']node:|require\(["']node:|import\(["']node:/);
      expect(text, f).not.toMatch(/from\s+["'](\.\.\/)+cli\//);
    }
  });
  it("worker/core/ has no runtime access (env, cloudflare:*, fetch)", async () => {
    const files = (await readdir(join(ROOT, "worker/core"))).filter((f) => f.endsWith(".ts"));
    for (const f of files) {
      const text = await readFile(join(ROOT, "worker/core", f), "utf8");
      expect(text, f).not.toMatch(/cloudflare:|\benv\.|\bfetch\(/);
    }
  });
});
