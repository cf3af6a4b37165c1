// The page in a real browser: headless Chromium (test/fixtures/browser.ts) against the Worker in
// `wrangler dev` (demo catalog, real Durable Objects, the scripted upstream model for one chat),
// with the development key a user pastes. Each case checks what a person would look at, against
// the numbers the /v1 API gives for the same thing. Without a browser the cases skip and say why.
import OpenAI from "openai";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { launchChromium } from "../fixtures/browser.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { DEV_API_KEY, DEV_AUTH, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const launched = await launchChromium();
const browser: Browser | null = typeof launched === "string" ? null : launched;
if (typeof launched === "string") console.warn(`SKIPPED: the page's browser tests: ${launched}`);

let dev: DevServer;
let llm: ScriptedLLM;
let page: Page;
const problems: string[] = [];

const api = async (path: string, body?: unknown): Promise<Json> => {
  const init = body === undefined ? { headers: DEV_AUTH } : { method: "POST", headers: { ...DEV_AUTH, "content-type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(`${dev.url}${path}`, init);
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
};

/** A fresh tab that reports every console error and uncaught exception into `into`. */
async function openPage(into: string[]): Promise<Page> {
  const p = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
  p.on("console", (m) => m.type() === "error" && into.push(`console: ${m.text()}`));
  p.on("pageerror", (e) => into.push(`pageerror: ${e.message}`));
  return p;
}

async function signIn(p: Page, key = DEV_API_KEY): Promise<void> {
  await p.goto(`${dev.url}/`);
  await p.fill("#api-key", key);
  await p.press("#api-key", "Enter");
}

const numbers = (texts: string[]) => texts.map((t) => Number(t));

describe.skipIf(!browser)("the page in headless Chromium", () => {
  beforeAll(async () => {
    llm = await startScriptedLLM();
    dev = await startWranglerDev({ persistTo: await tempDir("toolsearch-page-"), vars: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "test-key" } });
    page = await openPage(problems);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    await llm?.close();
  });

  it("loads with the development key: the pinned label, the servers, the totals; the key only in sessionStorage", async () => {
    const info = await api("/v1/catalog");
    await signIn(page);
    await page.waitForSelector(".catalog-view");
    expect(await page.getAttribute("[data-label]", "data-label")).toBe(info.label);
    expect(await page.textContent("#pinned")).toBe(info.label);
    expect(await page.locator("table.servers tbody tr").count()).toBe(info.servers.length);
    expect(await page.getAttribute('[data-total="full"] dd', "data-value")).toBe(String(info.tokens.fullInjection));
    for (const form of ["names", "grouped", "servers", "none"]) {
      expect(await page.getAttribute(`[data-total="listing-${form}"] dd`, "data-value")).toBe(String(info.tokens.listing[form]));
    }
    expect(await page.inputValue("#api-key")).toBe("");
    const stored = await page.evaluate("[sessionStorage.getItem('toolsearch.apiKey'), localStorage.length, document.cookie]");
    expect(stored).toEqual([DEV_API_KEY, 0, ""]);
  });

  it("draws the per-server chart from the API's numbers: one bar per server and series, lengths to scale", async () => {
    const info = await api("/v1/catalog");
    const bars = await page.locator(".chart rect.bar").evaluateAll((els) => els.map((e) => ({ server: e.parentElement!.getAttribute("data-row"), series: e.getAttribute("data-series"), value: Number(e.getAttribute("data-value")), width: e.getBoundingClientRect().width })));
    expect(bars).toHaveLength(info.servers.length * 4);
    const expected = info.servers.flatMap((s: Json) => ["full", "names", "grouped", "servers"].map((series) => ({ server: s.name, series, value: s.tokens[series] })));
    expect(bars.map(({ server, series, value }) => ({ server, series, value }))).toEqual(expected);
    // one scale: width / value is the same for every bar long enough to measure
    const widest = bars.reduce((a, b) => (b.value > a.value ? b : a));
    expect(widest.width).toBeGreaterThan(100);
    for (const b of bars.filter((x) => x.value > 0)) expect(b.width).toBeCloseTo(Math.max((b.value / widest.value) * widest.width, widest.width / 430), 0);
  });

  it("filters and sorts the tools table; the sort headers work from the keyboard", async () => {
    const tools = (await api("/v1/catalog/tools")).tools as Json[];
    const github = tools.filter((t) => t.server === "github");
    await page.fill("#tools-filter", "github");
    await page.selectOption("#tools-server", "github");
    expect(await page.locator("#tools-table tbody tr").count()).toBe(github.length);
    expect(await page.textContent("#tools-count")).toBe(`${github.length} of ${tools.length} tools`);
    await page.focus('#tools-table button[data-sort="definition"]');
    await page.keyboard.press("Enter");
    const shown = await page.locator("#tools-table tbody tr").evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-tool"), Number(r.children[2]!.textContent!.replace(/,/g, ""))]));
    const sorted = [...github].sort((a, b) => b.tokens.definition - a.tokens.definition || (a.name < b.name ? -1 : 1)).map((t) => [t.name, t.tokens.definition]);
    expect(shown).toEqual(sorted);
    expect(await page.getAttribute('#tools-table th:has(button[data-sort="definition"])', "aria-sort")).toBe("descending");
  });

  it("shows the policy decision for a typed model, as the API decides it", async () => {
    for (const model of ["claude-3-haiku-20240307", "gpt-4o"]) {
      const want = await api(`/v1/catalog/policy?model=${model}`);
      await page.fill("#policy-model", model);
      await page.press("#policy-model", "Enter");
      await expect.poll(() => page.getAttribute("#policy-result [data-mode]", "data-mode")).toBe(want.mode);
      expect(await page.textContent("#policy-result .reason")).toBe(want.reason);
    }
  });

  it("search playground: ranked results with scores, matched words and the time taken", async () => {
    const fresh = await api("/v1/sessions", { model: "playground", deferral: "on" });
    const want = await api(`/v1/sessions/${fresh.id}/tool-search`, { query: "browser screenshot", limit: 5 });
    await page.click('nav a[data-view="search"]');
    await page.fill("#search-query", "browser screenshot");
    await page.press("#search-query", "Enter");
    await page.waitForSelector("#search-results li");
    const items = page.locator("#search-results li");
    expect(await items.evaluateAll((li) => li.map((e) => e.getAttribute("data-name")))).toEqual(want.matches.map((m: Json) => m.name));
    const scores = numbers(await items.evaluateAll((li) => li.map((e) => e.getAttribute("data-score")!)));
    expect(scores).toEqual(want.matches.map((m: Json) => m.score));
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(await items.first().locator(".word").allTextContents()).toEqual(want.matches[0].words);
    expect(await page.textContent("#search-status")).toMatch(/^5 results in \d+ ms \(round trip/);
    // the same query again: nothing new is loaded, the ranking is the same
    await page.press("#search-query", "Enter");
    await expect.poll(() => items.first().locator(".state").textContent()).toBe("already loaded");
    await page.fill("#search-query", "select:mcp__github__create_issue");
    await page.press("#search-query", "Enter");
    await expect.poll(() => items.evaluateAll((li) => li.map((e) => e.getAttribute("data-name")))).toEqual(["mcp__github__create_issue"]);
  });

  it("after a toolSearch through the API, the session view shows the activation on its timeline and the prompt's bytes", async () => {
    const s = await api("/v1/sessions", { model: "gpt-5", deferral: "on" });
    await api(`/v1/sessions/${s.id}/tool-search`, { query: "select:mcp__github__create_issue" });
    const prompt = await api(`/v1/sessions/${s.id}/prompt`);
    await page.goto(`${dev.url}/#session=${s.id}`);
    await page.waitForSelector('.timeline [data-activation="mcp__github__create_issue"]');
    expect(await page.textContent('[data-fact="mode"]')).toBe("deferred");
    expect(await page.textContent('[data-fact="reason"]')).toBe(s.reason);
    expect(await page.textContent("#prefix-hash")).toBe(prompt.prefixHash);
    expect(await page.getAttribute("#tools-bytes", "data-bytes")).toBe(String(Buffer.byteLength(canonicalJson(prompt.tools))));
    expect(await page.textContent("#system-section")).toBe(prompt.system);
    const rows = await page.locator(".prompt-tools tbody tr").evaluateAll((r) => r.map((e) => [e.getAttribute("data-tool"), e.children[2]!.textContent]));
    expect(rows.at(-1)).toEqual(["mcp__github__create_issue", "activated #1"]);
    expect(rows.map((r) => r[0])).toEqual(prompt.tools.map((t: Json) => t.function.name));
  });

  it("opens a chat endpoint session by its x-toolsearch-session id: the hidden round is a splice", async () => {
    const client = new OpenAI({ baseURL: `${dev.url}/v1`, apiKey: DEV_API_KEY, maxRetries: 0 });
    const { data, response } = await client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "create an issue on github" }] }).withResponse();
    const call = data.choices[0]!.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("mcp__github__create_issue");
    const id = response.headers.get("x-toolsearch-session")!;
    await page.click('nav a[data-view="session"]');
    await page.fill("#session-id", id);
    await page.press("#session-id", "Enter");
    await page.waitForSelector("table.splices tbody tr");
    expect(await page.locator("table.splices tbody tr").count()).toBe(1);
    expect(await page.textContent("table.splices tbody tr")).toContain("toolSearch");
    expect(await page.locator('.timeline [data-activation="mcp__github__create_issue"]').count()).toBe(1);
  });

  it("every control has a label; text meets 4.5:1 contrast; no console errors on any view", async () => {
    for (const view of ["catalog", "search", "session"]) {
      await page.goto(`${dev.url}/#${view}`);
      await page.waitForSelector(view === "catalog" ? ".catalog-view" : `.${view}-view`);
      const unlabeled = await page.evaluate("[...document.querySelectorAll('input, select, button')].filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim())).map((e) => e.outerHTML)");
      expect(unlabeled, view).toEqual([]);
      const pairs = (await page.evaluate(`[...document.querySelectorAll('h1, h2, h3, p, td, th, dt, dd, label, small, a, button, code, .word, .state')].filter((e) => e.offsetParent !== null).map((e) => {
        let bg = 'rgba(0, 0, 0, 0)';
        for (let n = e; n && /rgba\\(.*, 0\\)$|transparent/.test(bg); n = n.parentElement) bg = getComputedStyle(n).backgroundColor;
        return [e.tagName + '.' + e.className, getComputedStyle(e).color, bg];
      })`)) as Array<[string, string, string]>;
      expect(pairs.length, view).toBeGreaterThan(5);
      for (const [what, fg, bg] of pairs) expect(contrast(fg, bg), `${view} ${what}: ${fg} on ${bg}`).toBeGreaterThanOrEqual(4.5);
    }
    expect(problems).toEqual([]);
  });

  it("Forget key leaves nothing in the tab's storage and asks for a key again", async () => {
    expect(await page.evaluate("sessionStorage.length")).toBe(2); // the key and the scratch session
    await page.click("#forget-key");
    expect(await page.evaluate("sessionStorage.length")).toBe(0);
    expect(await page.textContent("#view")).toMatch(/^Paste an API key/);
    expect(problems).toEqual([]);
  });

  it("a wrong key gets a clear message and is not kept", async () => {
    const errors: string[] = [];
    const p = await openPage(errors);
    await signIn(p, "not-the-key-0000000000");
    await p.waitForSelector("#message:not([hidden])");
    expect(await p.textContent("#message")).toMatch(/^The Worker refused this API key \(401 unauthorized\): missing or invalid API key .*Paste a key from the Worker's API_KEYS/);
    expect(await p.evaluate("sessionStorage.getItem('toolsearch.apiKey')")).toBeNull();
    expect(await p.evaluate("document.activeElement.id")).toBe("api-key");
    expect(await p.locator(".catalog-view").count()).toBe(0);
    await p.close();
  });
});

/** WCAG contrast ratio of two computed CSS colours (`rgb(...)` / `rgba(...)`, alpha ignored). */
function contrast(fg: string, bg: string): number {
  const lum = (c: string) => {
    const [r, g, b] = c.match(/[\d.]+/g)!.slice(0, 3).map((v) => {
      const s = Number(v) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const bgColor = /rgba\(.*, 0\)$/.test(bg) ? "rgb(255, 255, 255)" : bg;
  const [a, b] = [lum(fg), lum(bgColor)].sort((x, y) => y - x) as [number, number];
  return (a + 0.05) / (b + 0.05);
}
