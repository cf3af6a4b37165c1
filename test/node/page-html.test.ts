// `catalog stats --html` and `catalog diff --html`, as a CI job would use them: the CLI writes one
// file, which opens in headless Chromium with the network off and shows the same figures the
// CLI's --json prints. Without a browser the cases that open the files skip and say why (under CI=true they fail).
import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Browser, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { parseConfig } from "../../cli/lib/config.ts";
import { catalogStats, type CatalogStats } from "../../cli/lib/stats.ts";
import { launchChromium } from "../fixtures/browser.ts";
import { describeInBrowser, ROOT, tempDir } from "./helpers.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEMO = join(
  ROOT,
  "catalogs",
  (await readdir(join(ROOT, "catalogs"))).find((f) => /^demo@.*\.json$/.test(f))!,
);

async function cli(cwd: string, ...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, "cli/index.ts"), ...args], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

/** Two versions of a small catalog from recorded tools (one tool removed, one added), and their stats. */
async function twoCatalogs(dir: string): Promise<Array<{ file: string; stats: CatalogStats }>> {
  const tool = (name: string, description: string) => ({
    name,
    description,
    inputSchema: { type: "object", properties: { id: { type: "string" } } },
  });
  const build = async (version: string, tools: unknown[]) => {
    await writeFile(join(dir, `${version}.tools.json`), JSON.stringify({ tools }));
    const { text, catalog } = await buildCatalog(
      parseConfig({ name: "shop", version, mcpServers: { shop: { tools: `${version}.tools.json` } } }, dir),
    );
    const file = join(dir, `shop@${version}.json`);
    await writeFile(file, text);
    return { file, stats: await catalogStats(catalog) };
  };
  return [
    await build("1.0.0", [tool("get_order", "Get an order."), tool("cancel_order", "Cancel an order.")]),
    await build("2.0.0", [tool("get_order", "Get an order."), tool("gift_wrap", "Wrap an order as a gift.")]),
  ];
}

describe("--html files (no browser needed)", () => {
  it("are one self-contained file: the data, script and style inline, nothing to fetch", async () => {
    const dir = await tempDir();
    const out = join(dir, "stats.html");
    const r = await cli(dir, "stats", DEMO, "--html", out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`wrote ${out}`);
    expect(r.stdout).toMatch(/full injection/); // the text report still prints
    const html = await readFile(out, "utf8");
    expect(html).toMatch(/<script type="application\/json" id="toolsearch-data">\{"kind":"catalog"/);
    expect(html).toContain("default-src 'none'");
    expect(html).not.toMatch(/\b(src|href)="(?!data:)/); // no external script, style or icon
  });

  it("a file that cannot be written is one clear line and exit 1", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "file"), "x");
    const r = await cli(dir, "stats", DEMO, "--html", join(dir, "file", "out.html"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^catalog: cannot write .*out\.html \(\w+\)\n$/);
  });

  it("--help says what --html does", async () => {
    for (const cmd of ["stats", "diff"]) expect((await cli(ROOT, cmd, "--help")).stdout).toMatch(/--html.*self-contained HTML file/);
  });
});

const launched = await launchChromium();
const browser: Browser | null = typeof launched === "string" ? null : launched;
const describeBrowser = describeInBrowser(launched, "opening the --html files in a browser");

/** The file in a context with the network off; every request it makes is recorded. */
async function openOffline(file: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const context = await browser!.newContext({ offline: true });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`file://${file}`);
  return { page, requests, errors };
}

describeBrowser("--html files in headless Chromium, offline", () => {
  afterAll(() => browser?.close());

  it("catalog stats --html shows the same totals as catalog stats --json", async () => {
    const dir = await tempDir();
    const out = join(dir, "demo.html");
    const r = await cli(dir, "stats", DEMO, "--json", "--html", out);
    const stats = JSON.parse(r.stdout);
    const { page, requests, errors } = await openOffline(out);
    await page.waitForSelector(".catalog-view");
    const shown = async (key: string) => [
      await page.getAttribute(`[data-total="${key}"] dd`, "data-value"),
      (await page.textContent(`[data-total="${key}"] dd`))!.split(" ")[0],
    ];
    expect(await shown("full")).toEqual([String(stats.tokens.full), stats.tokens.full.toLocaleString("en-US")]);
    expect(await shown("deferred")).toEqual([String(stats.tokens.deferred), stats.tokens.deferred.toLocaleString("en-US")]);
    for (const form of ["names", "grouped", "servers", "none"]) {
      expect(await shown(`section-${form}`)).toEqual([
        String(stats.tokens.sections[form]),
        stats.tokens.sections[form].toLocaleString("en-US"),
      ]);
    }
    expect(await shown("ratio")).toEqual([String(stats.tokens.ratio), `${(stats.tokens.ratio * 100).toFixed(1)}%`]);
    expect(await page.getAttribute("[data-label]", "data-label")).toBe(`${stats.name}@${stats.version}#${stats.hash.slice(0, 12)}`);
    expect(await page.locator(".chart rect.bar").count()).toBe(stats.servers * 4); // full + three listing forms
    expect(await page.locator("#tools-table tbody tr").count()).toBe(stats.tools);
    // the table works offline too
    await page.fill("#tools-filter", "screenshot");
    expect(await page.locator("#tools-table tbody tr").count()).toBeLessThan(stats.tools);
    expect(requests).toEqual([`file://${out}`]);
    expect(errors).toEqual([]);
  });

  it("charts the 40 largest servers of a catalog with more; the servers table keeps them all", async () => {
    const dir = await tempDir();
    // server i has i + 1 tools, so the largest are the last ones
    const rows = Array.from({ length: 45 }, (_, i) =>
      Array.from({ length: i + 1 }, (_, j) => ({
        server: `s${String(i).padStart(2, "0")}`,
        name: `tool_${j}`,
        description: `Tool ${j}.`,
        inputSchema: { type: "object" },
      })),
    ).flat();
    await writeFile(join(dir, "tools.jsonl"), rows.map((r) => JSON.stringify(r)).join("\n"));
    const { text } = await buildCatalog(
      parseConfig({ name: "many", version: "1.0.0", mcpServers: { all: { tools: "tools.jsonl" } } }, dir),
    );
    await writeFile(join(dir, "many.json"), text);
    const out = join(dir, "many.html");
    expect((await cli(dir, "stats", join(dir, "many.json"), "--html", out)).code).toBe(0);
    const { page, errors } = await openOffline(out);
    await page.waitForSelector(".catalog-view");
    const charted = await page.locator(".chart g[data-row]").evaluateAll((g) => g.map((x) => x.getAttribute("data-row")));
    expect(charted).toEqual(Array.from({ length: 40 }, (_, i) => `s${String(44 - i).padStart(2, "0")}`));
    expect(await page.textContent(".chart-figure figcaption")).toBe("Tokens per server: the 40 largest of 45");
    expect(await page.locator("table.servers tbody tr").count()).toBe(45);
    expect(errors).toEqual([]);
  });

  it("catalog diff --html shows what catalog diff --json says changed", async () => {
    const dir = await tempDir();
    const [v1, v2] = (await twoCatalogs(dir)) as [{ file: string; stats: CatalogStats }, { file: string; stats: CatalogStats }];
    const out = join(dir, "diff.html");
    const r = await cli(dir, "diff", v1.file, v2.file, "--json", "--html", out);
    expect(r.code, r.stderr).toBe(0);
    const d: Json = JSON.parse(r.stdout);
    const { page, requests, errors } = await openOffline(out);
    await page.waitForSelector(".diff-view");
    expect(await page.getAttribute("#diff-bump", "data-bump")).toBe(d.bump);
    expect(await page.locator("#added [data-tool]").evaluateAll((e) => e.map((x) => x.getAttribute("data-tool")))).toEqual(d.added);
    expect(await page.locator("#removed [data-tool]").evaluateAll((e) => e.map((x) => x.getAttribute("data-tool")))).toEqual(d.removed);
    expect(await page.textContent('[data-side="old"]')).toBe(d.old);
    expect(await page.textContent('[data-side="new"]')).toBe(d.new);
    const row = page.locator('.diff-totals tr[data-total="full"] td[data-value]');
    expect(await row.evaluateAll((c) => c.map((x) => Number(x.getAttribute("data-value"))))).toEqual([
      v1.stats.tokens.full,
      v2.stats.tokens.full,
    ]);
    // the chart's per-server bars add up to the table's totals (one function computes both)
    const bars = await page
      .locator(".chart rect.bar")
      .evaluateAll((els) => els.map((e) => [e.getAttribute("data-series"), Number(e.getAttribute("data-value"))] as const));
    const side = (key: string) => bars.filter(([series]) => series === key).reduce((n, [, value]) => n + value, 0);
    expect([side("old"), side("new")]).toEqual([v1.stats.tokens.full, v2.stats.tokens.full]);
    expect(requests).toEqual([`file://${out}`]);
    expect(errors).toEqual([]);
  });
});
