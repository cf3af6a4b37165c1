// `catalog enrich` spawned like a user runs it, against the scripted OpenAI-compatible model
// (test/fixtures/scripted-llm.ts answers the enrichment prompt): faults (429, 500, malformed
// JSON, a wrong shape, a slow answer) retried, a tool that keeps failing left out and reported,
// a killed run resumed, a rerun with nothing to do asking nothing; --check and `catalog build`
// naming stale and unknown entries.
import { execFile, spawn } from "node:child_process";
import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolHash, type SearchTextEntries } from "../../cli/lib/search-text-file.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { ROOT, tempDir } from "./helpers.ts";

const SHOP = join(ROOT, "test/fixtures/shop-tools.json");
const shopTools = (JSON.parse(await readFile(SHOP, "utf8")) as { tools: Array<{ name: string; description: string }> }).tools;
const KEYS = shopTools.map((t) => `shop/${t.name}`).sort();

async function project(): Promise<string> {
  const dir = await tempDir("toolsearch-enrich-");
  await copyFile(SHOP, join(dir, "tools.json"));
  const config = { name: "shop", version: "1.0.0", searchText: "search-text.json", mcpServers: { shop: { tools: "tools.json" } } };
  await writeFile(join(dir, "toolsearch.config.json"), JSON.stringify(config));
  return dir;
}

const env = { ...process.env, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: "", OPENAI_MODEL: "" };
const run = (cwd: string, ...args: string[]) => runIn(env, cwd, ...args);
const runIn = async (env: NodeJS.ProcessEnv, cwd: string, ...args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, "cli/index.ts"), ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
};
const readText = async (dir: string) => {
  const { $format: _, ...entries } = JSON.parse(await readFile(join(dir, "search-text.json"), "utf8")) as SearchTextEntries;
  return entries;
};
/** a fault for the request about this tool (its definition is canonical JSON inside the request's JSON) */
const about = (name: string) => `\\"name\\":\\"${name}\\"`;
const asked = (llm: ScriptedLLM) => llm.requests.map((r) => /"name":"([^"]+)"/.exec(String(r.body.messages[1]?.content))![1]!).sort();

let llm: ScriptedLLM;
beforeAll(async () => {
  llm = await startScriptedLLM();
});
afterAll(() => llm.close());

describe("catalog enrich", () => {
  let dir: string;
  const model = (...more: string[]) => ["enrich", "--base-url", llm.url, "--model", "scripted-1", ...more];

  it("writes every tool's search text through 429, 500, malformed JSON, a wrong shape and a slow answer; the tool that keeps failing is reported", async () => {
    dir = await project();
    const quick = { "retry-after-ms": "20" };
    llm.reset();
    llm.fail(
      { status: 429, headers: quick, for: about("search_products") },
      { status: 500, headers: quick, for: about("get_product") },
      { malformed: true, for: about("list_orders") },
      { wrongShape: true, for: about("get_order") },
      { slowMs: 2500, for: about("create_order") },
      { wrongShape: true, for: about("send_email") },
      { wrongShape: true, for: about("send_email") },
    );
    const r = await run(dir, ...model("--concurrency", "3", "--retries", "2", "--timeout-ms", "1000"));
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^12 written, 0 kept, 1 failed; \d+ tokens \(\d+ prompt, \d+ completion\) in 16 model calls/);
    expect(r.stderr).toContain("failed: shop/send_email: bad answer twice (wrong shape: queries: exactly 6)");
    expect(r.stderr).toMatch(/\d+\/13 ok {4}shop\/search_products/);
    // 13 tools, one more request each for 429, 500, malformed, wrong shape, the timed-out slow answer and send_email
    expect(llm.requests).toHaveLength(19);
    expect(llm.requests.every((q) => (q.body.response_format as { type: string }).type === "json_schema")).toBe(true);
    const text = await readText(dir);
    expect(Object.keys(text).sort()).toEqual(KEYS.filter((k) => k !== "shop/send_email"));
    for (const t of shopTools.filter((t) => t.name !== "send_email")) {
      const e = text[`shop/${t.name}`]!;
      expect(e.toolHash).toBe(toolHash({ server: "shop", originalName: t.name, ...t, inputSchema: (t as never)["inputSchema"] }));
      expect(e.by).toBe("scripted-1 (catalog enrich, prompt 1)");
      expect(e.queries).toHaveLength(6);
      expect(e.queries!.some((q) => /\p{Script=Han}/u.test(q))).toBe(true);
      expect(e.when).toMatch(/^Use when you want to /);
    }
    // sorted, canonical: the file is what the writer makes of its own content
    const raw = await readFile(join(dir, "search-text.json"), "utf8");
    expect(raw.startsWith('{\n "$format": "toolsearch.search-text/1",\n "shop/apply_coupon": {')).toBe(true);
  });

  it("a rerun asks only for the tool that failed; the next asks nothing", async () => {
    llm.reset();
    const again = await run(dir, ...model());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^1 written, 12 kept, 0 failed; .* in 1 model call /);
    expect(asked(llm)).toEqual(["send_email"]);
    expect(Object.keys(await readText(dir)).sort()).toEqual(KEYS);
    llm.reset();
    const idle = await run(dir, ...model());
    expect(idle.stdout).toMatch(/^0 written, 13 kept, 0 failed; 0 tokens .* in 0 model calls /);
    expect(llm.requests).toHaveLength(0);
    expect(await run(dir, "enrich", "--check")).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("search text up to date: 13 of 13"),
    });
  });

  it("--check and catalog build name stale entries and keys that name no tool", async () => {
    const tools = JSON.parse(await readFile(join(dir, "tools.json"), "utf8")) as { tools: Array<{ name: string; description: string }> };
    tools.tools.find((t) => t.name === "refund_order")!.description = "Refund an order, fully or in part.";
    await writeFile(join(dir, "tools.json"), JSON.stringify(tools));
    const text = await readText(dir);
    await writeFile(join(dir, "search-text.json"), JSON.stringify({ ...text, "shop/ghost_tool": { keywords: ["boo"] } }));
    const check = await run(dir, "enrich", "--check");
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('warning: search text key "shop/ghost_tool" names no tool');
    expect(check.stderr).toContain("stale (the tool changed since its text was written): shop/refund_order");
    expect(check.stderr).toContain("catalog: 1 of 13 tools lack fresh search text in");
    const build = await run(dir, "build");
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain(
      "warning: search text: 1 stale entry (the tool changed since it was written; not indexed, run catalog enrich): shop/refund_order",
    );
    expect(build.stderr).toContain("warning: search text: 1 key names no tool: shop/ghost_tool");
  });

  it("a killed run keeps the entries it finished; the rerun asks only for the rest", async () => {
    const fresh = await project();
    const slow = await startScriptedLLM({ latencyMs: 250 });
    try {
      const child = spawn(
        process.execPath,
        [join(ROOT, "cli/index.ts"), "enrich", "--base-url", slow.url, "--model", "m", "--concurrency", "1"],
        {
          cwd: fresh,
          env,
          stdio: "ignore",
        },
      );
      const exited = new Promise((r) => child.on("exit", r));
      // kill it once a few answers are on disk (each answer is written as it arrives)
      for (let i = 0; i < 200; i++) {
        const have = await readText(fresh).then(
          (t) => Object.keys(t).length,
          () => 0,
        );
        if (have >= 4) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      child.kill("SIGKILL");
      await exited;
      const kept = Object.keys(await readText(fresh)).sort();
      expect(kept.length).toBeGreaterThanOrEqual(4);
      expect(kept.length).toBeLessThan(13);
      slow.reset();
      const rest = await run(fresh, "enrich", "--base-url", slow.url, "--model", "m", "--concurrency", "4");
      expect(rest.code, rest.stderr).toBe(0);
      expect(asked(slow).map((n) => `shop/${n}`)).toEqual(KEYS.filter((k) => !kept.includes(k)));
      expect(Object.keys(await readText(fresh)).sort()).toEqual(KEYS);
    } finally {
      await slow.close();
    }
  });

  it("says what is missing in one line: no model, no key, no searchText in the config", async () => {
    const d = await project();
    expect((await run(d, "enrich", "--base-url", llm.url)).stderr).toBe("catalog: no model: pass --model or set OPENAI_MODEL\n");
    const asks = llm.requests.length;
    const keyless = await runIn({ ...env, OPENAI_API_KEY: "" }, d, ...model());
    expect(keyless.stderr).toBe("catalog: no API key: set OPENAI_API_KEY (or pass --api-key)\n");
    expect(keyless.code).not.toBe(0);
    expect(llm.requests.length).toBe(asks); // refused before the model is asked
    await writeFile(
      join(d, "toolsearch.config.json"),
      JSON.stringify({ name: "shop", version: "1.0.0", mcpServers: { shop: { tools: "tools.json" } } }),
    );
    const r = await run(d, "enrich", "--check");
    expect(r).toMatchObject({
      code: 1,
      stderr: 'catalog: the config names no search-text file: add "searchText": "search-text.json" to it\n',
    });
  });
});
