// Benchmark catalogs, built by the real `catalog build` library: the demo catalog (committed),
// the combined eval catalog (3,004 tools from test/data/eval/all-tools.jsonl) and a
// 10,000-tool catalog generated deterministically from the eval tools (renamed copies across
// synthetic servers), and the search-text variants of bench:search (with the search text, with
// it appended to descriptions, the demo without it). Written to test/bench/.catalogs/ (not
// committed; rebuilt when missing).
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { buildCatalog } from "../../cli/lib/build.ts";
import { parseConfig } from "../../cli/lib/config.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BENCH_CATALOGS = join(ROOT, "test/bench/.catalogs");
/** wrangler configs, their local state and generated inputs: outside the assets directory */
export const BENCH_WORK = join(ROOT, "test/bench/.work");
/** the public tool-retrieval sets, kept in the repository (test/data/eval/SOURCE.md) */
export const EVAL_DATA = join(ROOT, "test/data/eval");
const ALL_TOOLS = join(EVAL_DATA, "all-tools.jsonl");
/** LiveMCPBench's search text (test/data/eval/SOURCE.md): keys are `<server>/<tool>`, so it fits the combined set too */
export const LIVE_TEXT = join(EVAL_DATA, "livemcpbench/search-text.json");

export interface BenchCatalog {
  label: string;
  file: string;
  tools: number;
}

async function buildFrom(name: string, rowsFile: string, searchText?: string): Promise<string> {
  const config = parseConfig({ name, version: "1.0.0", searchText, mcpServers: { eval: { tools: rowsFile } } }, BENCH_CATALOGS);
  const { text, fileName } = await buildCatalog(config);
  await writeFile(join(BENCH_CATALOGS, fileName), text);
  return fileName;
}

/** 10,000 tools: the eval tools in file order, copy k of each on server `<server>-m<k>`. */
export async function generate10k(): Promise<string> {
  const rows = (await readFile(ALL_TOOLS, "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { server: string });
  const out: string[] = [];
  for (let i = 0; i < 10_000; i++) {
    const row = rows[i % rows.length]!;
    const copy = Math.floor(i / rows.length);
    out.push(JSON.stringify(copy === 0 ? row : { ...row, server: `${row.server}-m${copy}` }));
  }
  await mkdir(BENCH_WORK, { recursive: true });
  const file = join(BENCH_WORK, "tools-10k.jsonl");
  await writeFile(file, `${out.join("\n")}\n`);
  return file;
}

/** A bench catalog built from `source` (recorded rows), rebuilt when missing or unreadable (e.g. older index format). */
async function ensure(name: string, source: () => Promise<string>, searchText?: string): Promise<string> {
  const have = (await readdir(BENCH_CATALOGS)).filter((f) => f.startsWith(`${name}@`) && f.endsWith(".json"));
  for (const f of have) {
    const ok = await readCatalogFile(join(BENCH_CATALOGS, f)).then(
      () => true,
      () => false,
    );
    if (ok) return f;
    await rm(join(BENCH_CATALOGS, f));
  }
  return buildFrom(name, await source(), searchText);
}

type Row = { description?: string } & Record<string, unknown>;
const readRows = async (file: string) =>
  (await readFile(file, "utf8"))
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Row & { server: string; name: string });

/** The bench:search catalogs with search text: built with it as its own fields, and with it appended to descriptions. */
export async function searchTextCatalogs(): Promise<Record<"livemcpbench" | "combined" | "livemcpbenchAppended", string>> {
  await mkdir(BENCH_CATALOGS, { recursive: true });
  return {
    livemcpbench: await ensure("livemcpbench-text", async () => join(EVAL_DATA, "livemcpbench/tools.jsonl"), LIVE_TEXT),
    combined: await ensure("eval3004-text", async () => ALL_TOOLS, LIVE_TEXT),
    livemcpbenchAppended: await ensure("livemcpbench-appended", async () => {
      // the first measurement: the text simply appended to each description
      const text = JSON.parse(await readFile(LIVE_TEXT, "utf8")) as Record<
        string,
        { when?: string; queries?: string[]; keywords?: string[] }
      >;
      const rows = (await readRows(join(EVAL_DATA, "livemcpbench/tools.jsonl"))).map((r) => {
        const e = text[`${r.server}/${r.name}`];
        const extra = e ? [e.when, ...(e.queries ?? []), ...(e.keywords ?? [])].filter(Boolean).join(" ") : "";
        return JSON.stringify(extra ? { ...r, description: `${r.description ?? ""} ${extra}`.trim() } : r);
      });
      await mkdir(BENCH_WORK, { recursive: true });
      const file = join(BENCH_WORK, "livemcpbench-appended.jsonl");
      await writeFile(file, `${rows.join("\n")}\n`);
      return file;
    }),
  };
}

/**
 * Cost only: the combined catalog with search text on EVERY tool (LiveMCPBench's entries dealt
 * out in turn, so ToolBench tools get text of the real size but not about them).
 */
export async function fullTextCombined(): Promise<string> {
  const text = Object.values(JSON.parse(await readFile(LIVE_TEXT, "utf8")) as Record<string, unknown>);
  const keys = (await readRows(ALL_TOOLS)).map((r) => `${r.server}/${r.name}`);
  await mkdir(BENCH_WORK, { recursive: true });
  const file = join(BENCH_WORK, "search-text-3004.json");
  await writeFile(file, JSON.stringify(Object.fromEntries(keys.map((k, i) => [k, text[i % text.length]]))));
  await mkdir(BENCH_CATALOGS, { recursive: true });
  return ensure("eval3004-fulltext", async () => ALL_TOOLS, file);
}

/** The pinned demo catalog's tools without their search text (recorded rows, rebuilt): the demo rows "without". */
export async function demoWithoutText(demoFile: string): Promise<string> {
  await mkdir(BENCH_CATALOGS, { recursive: true });
  const { catalog } = await readCatalogFile(join(ROOT, "catalogs", demoFile));
  return ensure(`demo-plain-${catalog.hash.slice(0, 12)}`, async () => {
    const rows = catalog.tools.map((t) =>
      JSON.stringify({ server: t.server, name: t.originalName, title: t.title, description: t.description, inputSchema: t.inputSchema }),
    );
    await mkdir(BENCH_WORK, { recursive: true });
    const file = join(BENCH_WORK, "tools-demo-plain.jsonl");
    await writeFile(file, `${rows.join("\n")}\n`);
    return file;
  });
}

/** The search-quality catalogs: LiveMCPBench, ToolBench and both combined. */
export async function evalCatalogs(): Promise<Record<"livemcpbench" | "toolbench" | "combined", string>> {
  await mkdir(BENCH_CATALOGS, { recursive: true });
  return {
    livemcpbench: await ensure("livemcpbench", async () => join(EVAL_DATA, "livemcpbench/tools.jsonl")),
    toolbench: await ensure("toolbench", async () => join(EVAL_DATA, "toolbench/tools.jsonl")),
    combined: await ensure("eval3004", async () => ALL_TOOLS),
  };
}

/**
 * The combined eval catalog plus the pinned demo catalog's tools on servers named demo-<server>
 * (five demo server names are also eval servers): the demo's short queries at 3,195 tools, where
 * `auto` lists no names. Named by the demo's hash, so a new demo catalog gets a new one.
 */
export async function evalWithDemo(demoFile: string): Promise<string> {
  await mkdir(BENCH_CATALOGS, { recursive: true });
  const { catalog } = await readCatalogFile(join(ROOT, "catalogs", demoFile));
  return ensure(`eval-demo-${catalog.hash.slice(0, 12)}`, async () => {
    const demoRows = catalog.tools.map((t) =>
      JSON.stringify({
        server: `demo-${t.server}`,
        name: t.originalName,
        title: t.title,
        description: t.description,
        inputSchema: t.inputSchema,
        outputSchema: t.outputSchema,
        annotations: t.annotations,
      }),
    );
    await mkdir(BENCH_WORK, { recursive: true });
    const file = join(BENCH_WORK, "tools-eval-demo.jsonl");
    await writeFile(file, `${(await readFile(ALL_TOOLS, "utf8")).trim()}\n${demoRows.join("\n")}\n`);
    return file;
  });
}

export async function benchCatalogs(): Promise<BenchCatalog[]> {
  await mkdir(BENCH_CATALOGS, { recursive: true });
  const demo = (await readdir(join(ROOT, "catalogs"))).find((f) => f.startsWith("demo@"))!;
  if (!existsSync(join(BENCH_CATALOGS, demo))) await copyFile(join(ROOT, "catalogs", demo), join(BENCH_CATALOGS, demo));
  const evalFile = (await evalCatalogs()).combined;
  const tenK = await ensure("synthetic10k", generate10k);
  const count = async (f: string) => (JSON.parse(await readFile(join(BENCH_CATALOGS, f), "utf8")) as { tools: unknown[] }).tools.length;
  return [
    { label: "demo", file: demo, tools: await count(demo) },
    { label: "eval (3,004)", file: evalFile, tools: await count(evalFile) },
    { label: "synthetic (10,000)", file: tenK, tools: await count(tenK) },
  ];
}

if (import.meta.main) console.log(await benchCatalogs());
