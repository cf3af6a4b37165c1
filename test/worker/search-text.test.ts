// Search text in workerd, on the pinned demo catalog (it ships with search text) and the same
// catalog without it (demo-plain, prepare-catalogs.ts): requests worded only like a tool's search
// text find it, a query that is a tool's name loads that tool first in a deferred session, Chinese
// and mixed queries find what the English ones do, and GET /v1/catalog's token totals are the
// same bytes with and without search text (it is never part of what a model is shown).
import { describe, expect, it } from "vitest";
import { callWith } from "./helpers.ts";

const TEXT = { CATALOG: "demo-text@1.0.0.json" };
const PLAIN = { CATALOG: "demo-plain@1.0.0.json" };
const newSession = async (vars = TEXT) => (await callWith(vars, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body;
const search = (id: string, query: string, limit: number, vars = TEXT) =>
  callWith(vars, "POST", `/v1/sessions/${id}/tool-search`, { query, limit });

describe("search text in the Worker", () => {
  it("finds a tool from a request worded like its search text only", async () => {
    const s = await newSession();
    const plain = await newSession(PLAIN);
    for (const [query, tool] of [
      ["pretend the browser is in Paris", "mcp__chrome-devtools__emulate"],
      ["which API calls did the site fire", "mcp__chrome-devtools__list_network_requests"],
    ]) {
      const found = await search(s.id, query!, 5);
      expect(found.status).toBe(200);
      expect(
        found.body.matches.map((m: { name: string }) => m.name),
        query,
      ).toContain(tool);
      expect(found.body.matches.find((m: { name: string }) => m.name === tool).fields).toContain("queries");
      const without = await search(plain.id, query!, 5, PLAIN);
      expect(without.body.matches.map((m: { name: string }) => m.name)).not.toContain(tool);
    }
  });

  it("loads the tool first when the query is its exposed or original name, in any case", async () => {
    const s = await newSession();
    for (const query of ["mcp__github__create_issue", "CREATE_ISSUE", "Mcp__Memory__Read_Graph"]) {
      const r = await search(s.id, query, 3);
      expect(r.body.matches[0].name, query).toBe(
        query.toLowerCase().startsWith("mcp__") ? query.toLowerCase() : "mcp__github__create_issue",
      );
    }
    const loaded = await search(s.id, "mcp__chrome-devtools__take_screenshot", 1);
    expect(loaded.body.loaded).toEqual(["mcp__chrome-devtools__take_screenshot"]);
  });

  it("answers Chinese and mixed queries like their English", async () => {
    const s = await newSession();
    for (const [zh, en] of [
      ["关闭浏览器标签页", "close the browser tab"],
      ["github 创建 issue", "github create issue"],
      ["网页截图", "screenshot of the web page"],
    ]) {
      const names = async (q: string) => (await search(s.id, q, 3)).body.matches.map((m: { name: string }) => m.name) as string[];
      const [a, b] = [await names(zh!), await names(en!)];
      // each one's best is among the other's top 3 (screenshots: two tools fit)
      expect(a, zh).toContain(b[0]);
      expect(b, en).toContain(a[0]);
    }
  });

  it("GET /v1/catalog's token totals are the same bytes with and without search text", async () => {
    const [withText, without] = [await callWith(TEXT, "GET", "/v1/catalog"), await callWith(PLAIN, "GET", "/v1/catalog")];
    expect(withText.body.hash).not.toBe(without.body.hash);
    expect(JSON.stringify(withText.body.tokens)).toBe(JSON.stringify(without.body.tokens));
    expect(JSON.stringify(withText.body.servers)).toBe(JSON.stringify(without.body.servers));
  });
});
