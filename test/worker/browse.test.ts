// Browsing a server (`mcp__<server>` alone) on a catalog of two LiveMCPBench servers: ppt has 35
// tools. Pages of names and one-line descriptions, nothing loaded, the way on to the next page;
// the servers listing shows what each server says of itself; ambiguous short names are named.
import { describe, expect, it } from "vitest";
import { callWith } from "./helpers.ts";

const OFFICE = { CATALOG: "office@1.0.0.json" };
const post = (path: string, body: unknown) => callWith(OFFICE, "POST", path, body);
const browse = (id: string, query: string, limit?: number) =>
  post(`/v1/sessions/${id}/tool-search`, limit === undefined ? { query } : { query, limit });

async function session(listing = "servers") {
  const r = await post("/v1/sessions", { model: "gpt-4o", deferral: "on", listing });
  expect(r.status).toBe(201);
  return r.body;
}

/** The `- name: description` lines of a browse result. */
const listed = (result: string) =>
  result
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2, l.indexOf(": ")));

describe("browsing a server", () => {
  it("pages through the 35-tool server, 20 at a time, loading nothing", async () => {
    const s = await session();
    const first = await browse(s.id, "mcp__ppt");
    expect(first.status).toBe(200);
    expect(first.body.result.split("\n")[0]).toBe(
      "Server ppt: 35 tools, 1-20 shown (page 1 of 2). Nothing was loaded: load tools with select:<name>[,<name>...], or search with keywords.",
    );
    expect(first.body.result).toMatch(/\nNext page: mcp__ppt page:2$/);
    expect(first.body).toMatchObject({ loaded: [], alreadyLoaded: [] });
    const second = await browse(s.id, "mcp__ppt page:2");
    expect(second.body.result).toMatch(/^Server ppt: 35 tools, 21-35 shown \(page 2 of 2\)/);
    expect(second.body.result).not.toContain("Next page");
    const names = [...listed(first.body.result), ...listed(second.body.result)];
    expect(names).toHaveLength(35);
    expect(new Set(names).size).toBe(35);
    expect(names.every((n) => n.startsWith("mcp__ppt__"))).toBe(true);
    expect(names).toEqual([...names].sort());
    expect(first.body.matches.map((m: { name: string }) => m.name)).toEqual(names.slice(0, 20));
    // one line per tool, descriptions cut to one line
    expect(first.body.result.split("\n")).toHaveLength(22);
    const info = await callWith(OFFICE, "GET", `/v1/sessions/${s.id}`);
    expect(info.body.activations).toEqual([]);
    const prompt = await callWith(OFFICE, "GET", `/v1/sessions/${s.id}/prompt`);
    expect(prompt.body.system).toBe(s.prompt.system);
    expect(prompt.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["toolSearch"]);
  });

  it("limit sets the page size; a page past the end says how many there are", async () => {
    const s = await session();
    const pages = [];
    for (let p = 1; p <= 4; p++) pages.push(listed((await browse(s.id, `mcp__ppt page:${p}`, 10)).body.result));
    expect(pages.map((p) => p.length)).toEqual([10, 10, 10, 5]);
    expect(new Set(pages.flat()).size).toBe(35);
    expect((await browse(s.id, "mcp__ppt page:5", 10)).body.result).toBe("Server ppt has 35 tools in 4 pages; there is no page 5.");
  });

  it("a server that does not exist names the servers there are; words after the server search it", async () => {
    const s = await session();
    const unknown = await browse(s.id, "mcp__pptx");
    expect(unknown.body.result).toBe(
      'No server "pptx". Servers: ppt, word-document-server. Browse one with mcp__<server>, or search with keywords.',
    );
    const searched = await browse(s.id, "mcp__ppt chart", 2);
    expect(searched.body.loaded).toHaveLength(2);
    expect(searched.body.loaded.every((n: string) => n.startsWith("mcp__ppt__"))).toBe(true);
    expect(searched.body.result).toContain("Server ppt has 35 tools: browse them with mcp__ppt (a page at a time, loads nothing).");
  });
});

describe("the servers listing and grouped short names on real server metadata", () => {
  it("a line per server with its count and the description it sent", async () => {
    const s = await session();
    expect(s.prompt.system).toContain(
      "\nppt (35 tools): A comprehensive MCP (Model Context Protocol) server for PowerPoint manipulation using python-pptx.\n",
    );
    // a first sentence over 100 characters is cut at a word
    expect(s.prompt.system).toContain(
      "\nword-document-server (24 tools): A Model Context Protocol (MCP) server for creating, reading, and manipulating Microsoft Word…\n",
    );
  });

  it("a bare short name two servers have is named with both full names", async () => {
    const s = await session("grouped");
    const r = await browse(s.id, "select:add_table,ppt.add_table");
    expect(r.body.loaded).toEqual(["mcp__ppt__add_table"]);
    expect(r.body.result).toContain(
      '"add_table" is the short name of several tools; select one by full name: mcp__ppt__add_table, mcp__word-document-server__add_table.',
    );
  });
});
