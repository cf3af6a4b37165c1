// The page in a real browser: headless Chromium (test/fixtures/browser.ts) against the Worker in
// `wrangler dev` (demo catalog, real Durable Objects, the scripted upstream model for one chat,
// server-everything over Streamable HTTP as the catalog's `everything` server for edge calls),
// with the development key a user pastes. Each case checks what a person would look at, against
// the numbers the /v1 API gives for the same thing. Without a browser the cases skip and say why (under CI=true they fail).
import OpenAI from "openai";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { launchChromium } from "../fixtures/browser.ts";
import { startEverything } from "../fixtures/edge-servers.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { DEV_API_KEY, DEV_AUTH, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { describeInBrowser, tempDir } from "./helpers.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const launched = await launchChromium();
const browser: Browser | null = typeof launched === "string" ? null : launched;
const describeBrowser = describeInBrowser(launched, "the page's browser tests");

let dev: DevServer;
let llm: ScriptedLLM;
let everything: { url: string; stop(): Promise<void> };
let page: Page;
/** the session of the audit case: the accessibility check draws its view, audit panel included */
let audited = "";
const problems: string[] = [];

const api = async (path: string, body?: unknown): Promise<Json> => {
  const init =
    body === undefined
      ? { headers: DEV_AUTH }
      : { method: "POST", headers: { ...DEV_AUTH, "content-type": "application/json" }, body: JSON.stringify(body) };
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

describeBrowser("the page in headless Chromium", () => {
  beforeAll(async () => {
    [llm, everything] = await Promise.all([startScriptedLLM(), startEverything()]);
    const SERVERS = JSON.stringify({ everything: { url: everything.url, timeoutMs: 10_000 } });
    dev = await startWranglerDev({
      persistTo: await tempDir("toolsearch-page-"),
      vars: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "test-key", SERVERS },
    });
    page = await openPage(problems);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.stop();
    await llm?.close();
    await everything?.stop();
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
    const bars = await page.locator(".chart rect.bar").evaluateAll((els) =>
      els.map((e) => ({
        server: e.parentElement!.getAttribute("data-row"),
        series: e.getAttribute("data-series"),
        value: Number(e.getAttribute("data-value")),
        width: e.getBoundingClientRect().width,
      })),
    );
    expect(bars).toHaveLength(info.servers.length * 4);
    const expected = info.servers.flatMap((s: Json) =>
      ["full", "names", "grouped", "servers"].map((series) => ({ server: s.name, series, value: s.tokens[series] })),
    );
    expect(bars.map(({ server, series, value }) => ({ server, series, value }))).toEqual(expected);
    // one scale: width / value is the same for every bar long enough to measure
    const widest = bars.reduce((a, b) => (b.value > a.value ? b : a));
    expect(widest.width).toBeGreaterThan(100);
    for (const b of bars.filter((x) => x.value > 0))
      expect(b.width).toBeCloseTo(Math.max((b.value / widest.value) * widest.width, widest.width / 430), 0);
    // each series has its own colour, the one its legend swatch shows
    const fills = await page
      .locator(".chart rect.bar")
      .evaluateAll((els) => [
        ...new Map(els.map((e) => [e.getAttribute("data-series"), e.ownerDocument.defaultView!.getComputedStyle(e).fill])).values(),
      ]);
    const swatches = await page
      .locator(".chart-figure .legend .swatch")
      .evaluateAll((els) => els.map((e) => e.ownerDocument.defaultView!.getComputedStyle(e).backgroundColor));
    expect(fills).toEqual(swatches);
    expect(new Set(fills).size).toBe(4);
    expect(fills).not.toContain("rgb(0, 0, 0)"); // SVG's default fill: a series without a colour
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
    const shown = await page
      .locator("#tools-table tbody tr")
      .evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-tool"), Number(r.children[2]!.textContent!.replace(/,/g, ""))]));
    const sorted = [...github]
      .sort((a, b) => b.tokens.definition - a.tokens.definition || (a.name < b.name ? -1 : 1))
      .map((t) => [t.name, t.tokens.definition]);
    expect(shown).toEqual(sorted);
    expect(await page.getAttribute('#tools-table th:has(button[data-sort="definition"])', "aria-sort")).toBe("descending");
  });

  it("shows a tool's search text under its description, and the filter finds tools by it", async () => {
    const tools = (await api("/v1/catalog/tools")).tools as Json[];
    const issue = tools.find((t) => t.name === "mcp__github__create_issue")!;
    expect(issue.search.queries.length).toBeGreaterThan(0);
    await page.selectOption("#tools-server", "");
    await page.fill("#tools-filter", issue.search.queries[0]);
    const row = page.locator('#tools-table tbody tr[data-tool="mcp__github__create_issue"]');
    await row.locator("details.search-text summary").click();
    expect(await row.locator('details.search-text ul[aria-label="example requests"] li').allTextContents()).toEqual(issue.search.queries);
    expect(await row.locator("details.search-text").textContent()).toContain(`when: ${issue.search.when}`);
    await page.fill("#tools-filter", "");
  });

  it("shows the policy decision for a typed model, as the API decides it: mode, listing form, each with its reason", async () => {
    const cases: Array<[string, string]> = [
      ["claude-3-haiku-20240307", ""],
      ["gpt-4o", ""],
      ["gpt-4o", "servers"],
    ];
    for (const [model, listing] of cases) {
      const want = await api(`/v1/catalog/policy?model=${model}${listing ? `&listing=${listing}` : ""}`);
      await page.selectOption("#policy-listing", listing);
      await page.fill("#policy-model", model);
      await page.press("#policy-model", "Enter");
      await expect.poll(() => page.getAttribute("#policy-result [data-mode]", "data-mode")).toBe(want.mode);
      await expect.poll(() => page.getAttribute("#policy-result [data-listing]", "data-listing")).toBe(want.listing ?? "");
      const [modeWhy, listingWhy] = [
        await page.textContent("#policy-result .mode-reason"),
        await page.textContent("#policy-result .listing-reason"),
      ];
      expect(want.listing ? `${modeWhy}; ${listingWhy}` : modeWhy).toBe(want.reason);
      if (listing) expect(listingWhy).toMatch(new RegExp(`^listing "${listing}" \\(\\d+ tokens\\): requested for this session$`));
      expect(await page.textContent("#policy-result .view-counts")).toMatch(
        new RegExp(`^This key's tenant sees all ${want.access.catalogTools} tools \\(access rules: default\\)`),
      );
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
    expect(want.matches[0].fields).toContain("queries");
    expect(await items.first().locator(".fields").textContent()).toContain("search text: example requests");
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
    expect(await page.getAttribute('[data-fact="listing"]', "data-value")).toBe(s.listing);
    expect(await page.getAttribute('[data-fact="execution"]', "data-value")).toBe("client");
    expect(await page.textContent('[data-fact="execution"] small')).toBe(" (the client runs every tool; the Worker ran none)");
    expect(await page.locator(".client-tools").count()).toBe(0); // no chat client declared tools here
    expect(await page.textContent("#prefix-hash")).toBe(prompt.prefixHash);
    expect(await page.getAttribute("#tools-bytes", "data-bytes")).toBe(String(Buffer.byteLength(canonicalJson(prompt.tools))));
    expect(await page.textContent("#system-section")).toBe(prompt.system);
    const rows = await page
      .locator(".prompt-tools tbody tr")
      .evaluateAll((r) => r.map((e) => [e.getAttribute("data-tool"), e.children[2]!.textContent]));
    expect(rows.at(-1)).toEqual(["mcp__github__create_issue", "activated #1"]);
    expect(rows.map((r) => r[0])).toEqual(prompt.tools.map((t: Json) => t.function.name));
  });

  it("a code-mode run is on the session's timeline with its digest, outcome, ms and its calls grouped under it", async () => {
    const s = await api("/v1/sessions", { model: "gpt-5", deferral: "on", code: "on" });
    const ok = await api(`/v1/sessions/${s.id}/code`, {
      code: 'const a = await tools.everything.echo({ message: "one" });\nconst b = await tools.everything["get-sum"]({ a: 2, b: 3 });\nreturn [a, b];',
    });
    expect(ok.calls.map((c: Json) => c.tool)).toEqual(["mcp__everything__echo", "mcp__everything__get-sum"]);
    const bad = await api(`/v1/sessions/${s.id}/code`, {
      code: 'await tools.everything.echo({ message: "two" });\nthrow new Error("stop");',
    });
    expect(bad.error.kind).toBe("thrown");
    const runs = ((await api(`/v1/sessions/${s.id}/audit?type=run`)).events as Json[]).reverse(); // oldest first
    expect(runs.map((r) => [r.run, r.outcome])).toEqual([
      [ok.run, "ok"],
      [bad.run, expect.not.stringMatching(/^ok$/)],
    ]);
    await page.goto(`${dev.url}/#session=${s.id}`);
    await page.waitForSelector(`.timeline [data-run="${bad.run}"]`);
    expect(await page.textContent("#timeline-heading")).toMatch(/, 2 runs$/);
    const drawn = await page.locator(".run-list > li").evaluateAll((items) =>
      items.map((li) => ({
        run: li.getAttribute("data-run"),
        outcome: li.getAttribute("data-outcome"),
        ms: Number(li.getAttribute("data-duration-ms")),
        digest: li.querySelector(".run-digest")!.textContent,
        calls: [...li.querySelectorAll(".run-calls > li")].map((c) => [c.getAttribute("data-call"), c.getAttribute("data-outcome")]),
      })),
    );
    for (const [i, r] of runs.entries()) {
      const under = ((await api(`/v1/sessions/${s.id}/audit?run=${r.run}`)).events as Json[]).filter((e) => e.type === "call").reverse();
      expect(drawn[i]).toEqual({
        run: r.run,
        outcome: r.outcome,
        ms: r.durationMs,
        digest: r.argsDigest.replace(/^sha256:/, "").slice(0, 12),
        calls: under.map((e) => [e.tool, e.outcome]),
      });
    }
    expect(drawn.map((d) => d.calls.length)).toEqual([2, 1]);
    expect(await page.textContent(`[data-run="${ok.run}"]`)).toContain(`ok ${runs[0].durationMs} ms, 2 calls`);
  });

  it("a client-execution session whose tool the Worker ran through REST says so, not only `client`", async () => {
    const s = await api("/v1/sessions", { model: "gpt-5", deferral: "on" });
    expect(s.execution).toBe("client");
    const echo = await api(`/v1/sessions/${s.id}/tools/mcp__everything__echo/call`, { arguments: { message: "run by the Worker" } });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: run by the Worker" }]);
    expect((await api(`/v1/sessions/${s.id}`)).workerCalls).toEqual([{ via: "rest", calls: 1 }]);
    await page.goto(`${dev.url}/#session=${s.id}`);
    await page.waitForSelector("table.audit tbody tr");
    expect(await page.getAttribute('[data-fact="execution"]', "data-value")).toBe("client");
    expect(await page.textContent('[data-fact="execution"] small')).toBe(
      " (the chat endpoint leaves tools to the client; the Worker ran 1 call: 1 from REST tool calls)",
    );
  });

  it("opens a chat endpoint session by its x-toolsearch-session id: the hidden round is a splice, the client's tools their plan", async () => {
    const client = new OpenAI({ baseURL: `${dev.url}/v1`, apiKey: DEV_API_KEY, maxRetries: 0 });
    const weather = {
      type: "function" as const,
      function: {
        name: "local_weather",
        description: "The weather forecast for a city.",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    };
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "create an issue on github" }], tools: [weather] })
      .withResponse();
    const call = data.choices[0]!.message.tool_calls?.[0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("mcp__github__create_issue");
    const id = response.headers.get("x-toolsearch-session")!;
    const state = await api(`/v1/sessions/${id}`);
    expect(state.clientTools).toMatchObject({ kept: ["local_weather"], deferred: 0 });
    await page.click('nav a[data-view="session"]');
    await page.fill("#session-id", id);
    await page.press("#session-id", "Enter");
    await page.waitForSelector("table.splices tbody tr");
    expect(await page.locator("table.splices tbody tr").count()).toBe(1);
    expect(await page.textContent("table.splices tbody tr")).toContain("toolSearch");
    expect(await page.locator('.timeline [data-activation="mcp__github__create_issue"]').count()).toBe(1);
    expect(await page.textContent('[data-fact="client-kept"]')).toBe("local_weather");
    expect(await page.textContent('[data-fact="client-deferred"]')).toMatch(/^0 /);
    expect(await page.textContent('[data-fact="client-reason"]')).toBe(state.clientTools.reason);
    expect(await page.textContent('[data-fact="client-hash"] code')).toBe(state.clientTools.hash.slice(0, 16));
  });

  it("the audit panel shows the session's events as the API gives them, newest first, with More for older pages", async () => {
    const s = await api("/v1/sessions", { model: "gpt-5", deferral: "on", execution: "edge" });
    await api(`/v1/sessions/${s.id}/tool-search`, { query: "github issue pull request", limit: 20 });
    await api(`/v1/sessions/${s.id}/tool-search`, { query: "browser screenshot", limit: 5 });
    // an edge call: the Worker runs server-everything's echo (the call loads the tool: an activation)
    const echo = await api(`/v1/sessions/${s.id}/tools/mcp__everything__echo/call`, { arguments: { message: "from the page test" } });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: from the page test" }]);
    // arguments that fail the schema: refused before the server, audited as invalid_arguments
    const bad = await fetch(`${dev.url}/v1/sessions/${s.id}/tools/mcp__everything__echo/call`, {
      method: "POST",
      headers: { ...DEV_AUTH, "content-type": "application/json" },
      body: JSON.stringify({ arguments: { message: 42 } }),
    });
    expect(bad.status).toBe(400);
    audited = s.id;
    const all = (await api(`/v1/sessions/${s.id}/audit?limit=500`)).events as Json[];
    expect(all.length).toBeGreaterThan(25); // more than one page of the panel
    expect(all.slice(0, 3).map((e) => [e.type, e.tool, e.outcome])).toEqual([
      ["call", "mcp__everything__echo", "invalid_arguments"],
      ["call", "mcp__everything__echo", "ok"],
      ["activation", "mcp__everything__echo", "ok"],
    ]);
    expect(all.filter((e) => e.type === "search")).toHaveLength(2);

    await page.goto(`${dev.url}/#session=${s.id}`);
    await page.waitForSelector("table.audit tbody tr");
    expect(await page.getAttribute('[data-fact="execution"]', "data-value")).toBe("edge");
    // the call the schema refused never ran
    expect(await page.textContent('[data-fact="execution"] small')).toBe(
      " (the Worker runs catalog tools of servers it can reach; the Worker ran 1 call: 1 from REST tool calls)",
    );
    // the timeline tells the call's load of its tool from a toolSearch
    const activations = (await api(`/v1/sessions/${s.id}`)).activations as string[];
    expect(await page.textContent("#timeline-heading")).toBe(
      `Timeline: 2 searches, 1 call that loaded its tool, ${activations.length} activations`,
    );
    expect(await page.textContent('.timeline li[data-query="call:mcp__everything__echo"] .what')).toBe("a call of mcp__everything__echo");
    const rows = page.locator("table.audit tbody tr");
    expect(await rows.count()).toBe(25);
    expect(await page.textContent("#audit-status")).toBe("25 events, newest first; older ones follow.");
    while (await page.isVisible("#audit-more")) {
      const before = await rows.count();
      await page.focus("#audit-more");
      await page.keyboard.press("Enter");
      await expect.poll(() => rows.count()).toBeGreaterThan(before);
    }
    expect(await page.textContent("#audit-status")).toBe(`${all.length} events, newest first, all of them.`);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute("data-event"),
        type: tr.children[1]!.textContent,
        tool: tr.getAttribute("data-tool") || null,
        outcome: tr.children[3]!.textContent,
        durationMs: Number(tr.getAttribute("data-duration-ms")),
        shownMs: tr.children[4]!.textContent,
        argsDigest: tr.getAttribute("data-args-digest") || null,
        argsBytes: Number(tr.getAttribute("data-args-bytes")),
        args: tr.children[5]!.textContent,
      })),
    );
    expect(shown).toEqual(
      all.map((e) => ({
        id: e.id,
        type: e.type,
        tool: e.tool,
        outcome: e.outcome,
        durationMs: e.durationMs,
        shownMs: e.durationMs.toLocaleString("en-US"),
        argsDigest: e.argsDigest,
        argsBytes: e.argsBytes,
        args: e.argsDigest ? `${e.argsDigest.slice(0, 12)} ${e.argsBytes} B` : "—",
      })),
    );
    // the call's row: its arguments' digest and size, as the API computed them
    const callRow = page.locator(`table.audit tr[data-event="${all[1].id}"]`);
    expect(await callRow.getAttribute("data-args-bytes")).toBe(
      String(Buffer.byteLength(JSON.stringify({ message: "from the page test" }))),
    );
    expect(problems).toEqual([]);
  });

  it("every control has a label; text meets 4.5:1 contrast; no console errors on any view", async () => {
    expect(audited).not.toBe("");
    const ready: Record<string, string> = { catalog: ".catalog-view", search: ".search-view" };
    for (const view of ["catalog", "search", `session=${audited}`]) {
      await page.goto(`${dev.url}/#${view}`);
      await page.waitForSelector(ready[view] ?? "table.audit .outcome-bad");
      const unlabeled = await page.evaluate(
        "[...document.querySelectorAll('input, select, button')].filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || e.textContent.trim())).map((e) => e.outerHTML)",
      );
      expect(unlabeled, view).toEqual([]);
      const pairs =
        (await page.evaluate(`[...document.querySelectorAll('h1, h2, h3, p, td, th, dt, dd, label, small, a, button, code, .word, .state')].filter((e) => e.offsetParent !== null).map((e) => {
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
    expect(await p.textContent("#message")).toMatch(
      /^The Worker refused this API key \(401 unauthorized\): missing or invalid API key .*Paste a key from the Worker's API_KEYS/,
    );
    expect(await p.evaluate("sessionStorage.getItem('toolsearch.apiKey')")).toBeNull();
    expect(await p.evaluate("document.activeElement.id")).toBe("api-key");
    expect(await p.locator(".catalog-view").count()).toBe(0);
    await p.close();
  });
});

/** WCAG contrast ratio of two computed CSS colours (`rgb(...)` / `rgba(...)`, alpha ignored). */
function contrast(fg: string, bg: string): number {
  const lum = (c: string) => {
    const [r, g, b] = c
      .match(/[\d.]+/g)!
      .slice(0, 3)
      .map((v) => {
        const s = Number(v) / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const bgColor = /rgba\(.*, 0\)$/.test(bg) ? "rgb(255, 255, 255)" : bg;
  const [a, b] = [lum(fg), lum(bgColor)].sort((x, y) => y - x) as [number, number];
  return (a + 0.05) / (b + 0.05);
}
