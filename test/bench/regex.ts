// `npm run bench -- regex`: what Anthropic's regex tool search costs (worker/core/regex-search.ts),
// counted as the Worker counts it: state visits (the NFA's live states x the characters searched),
// the unit of REGEX_SEARCH_BUDGET, and the time, p50 of 5 runs. The Worker's own search (first 5
// matches, pauses every REGEX_SLICE visits) over the demo catalog, LiveMCPBench's 525 tools, and
// the demo tools with every eval tool (3,195 tools, a client's largest plausible tool set), with
// patterns a model writes; then the issue 39 attack (a 512 KiB description, (?i)[^~]{1990}~),
// which stops at the budget, and the longest pause between two slices.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import { Budget, BudgetExceeded, compilePattern } from "../../worker/core/pattern.ts";
import { matching, REGEX_SEARCH_BUDGET, REGEX_SLICE } from "../../worker/core/regex-search.ts";
import { ROOT } from "./catalogs.ts";
import { p50, tableSection } from "./results.ts";

const PATTERNS = [
  "github",
  "(?i)create.*issue",
  "(?i)(file|directory|folder)",
  "(?i)\\b(read|write)_\\w+",
  "(?i)stock|finance|price",
  "(?i)(weather|forecast).*(city|location)",
  "(?i).*slack.*",
  "(?i)(send|post|write|create|update|delete|remove|list|get|search|find|read)_(message|file|issue|user|channel|page)",
  "[a-z]{3,12}_(?:[a-z]{3,12}_){2,5}[a-z]+",
];

type Tool = Pick<CatalogTool, "name" | "description">;

async function jsonl(path: string): Promise<Tool[]> {
  const rows = (await readFile(join(ROOT, path), "utf8")).split("\n").filter(Boolean);
  return rows
    .map((l) => JSON.parse(l) as { server: string; name: string; description?: string })
    .map((t) => ({ name: `mcp__${t.server}__${t.name}`, description: t.description ?? "" }));
}

/** One search as the Worker runs it: visits used (or the budget, when it ran out) and ms, p50 of 5. */
async function measure(pattern: string, tools: readonly Tool[]) {
  const times: number[] = [];
  let visits = 0;
  let exceeded = false;
  let gap = 0;
  for (let run = 0; run < 5; run++) {
    const budget = new Budget(REGEX_SEARCH_BUDGET, REGEX_SLICE);
    let last = performance.now();
    const watch = setInterval(() => {
      gap = Math.max(gap, performance.now() - last);
      last = performance.now();
    }, 0);
    const started = performance.now();
    try {
      await matching(compilePattern(pattern), tools, budget, () => new Promise((r) => setTimeout(r, 0)));
    } catch (e) {
      if (!(e instanceof BudgetExceeded)) throw e;
      exceeded = true;
    }
    times.push(performance.now() - started);
    clearInterval(watch);
    visits = budget.total - budget.left;
  }
  return { visits, ms: p50(times), exceeded, gap };
}

export async function regexSection(): Promise<string> {
  const demoFile = (await readdir(join(ROOT, "catalogs"))).find((f) => f.startsWith("demo@") && f.endsWith(".json"))!;
  const demo = (JSON.parse(await readFile(join(ROOT, "catalogs", demoFile), "utf8")) as { tools: Tool[] }).tools;
  const live = await jsonl("test/data/eval/livemcpbench/tools.jsonl");
  const all = [...demo, ...(await jsonl("test/data/eval/all-tools.jsonl"))];
  const chars = (t: readonly Tool[]) => t.reduce((n, x) => n + x.name.length + 1 + x.description.length, 0);
  const rows: Array<Array<string | number>> = [];
  for (const [label, tools] of [
    ["demo", demo],
    ["LiveMCPBench", live],
    ["demo + eval tools", all],
  ] as const) {
    for (const pattern of PATTERNS) {
      const m = await measure(pattern, tools);
      const share = `${((100 * m.visits) / REGEX_SEARCH_BUDGET).toFixed(2)}%`;
      rows.push([label, `${tools.length} / ${chars(tools)}`, `\`${pattern.replace(/\|/g, "\\|")}\``, m.visits, share, m.ms.toFixed(1)]);
    }
  }
  const attack = await measure("(?i)[^~]{1990}~", [{ name: "big_tool", description: "x".repeat(512 * 1024) }]);
  return tableSection(
    "## 12. Regex search cost",
    `Anthropic's regex tool search as the Worker runs it (worker/core/regex-search.ts, from worker/messages/search.ts): state visits (the NFA's live states x characters searched; the first 5 matches end a search) against REGEX_SEARCH_BUDGET = ${REGEX_SEARCH_BUDGET} per request, and ms (p50 of 5, Node). The issue 39 attack, a 512 KiB description with \`(?i)[^~]{1990}~\`, ${attack.exceeded ? "ran out of the budget" : "did not run out of the budget"} after ${attack.visits} visits in ${attack.ms.toFixed(0)} ms (unbounded it needs about 4,000 visits a character, 2 billion: issue 39 measured 25 s in workerd); it paused every ${REGEX_SLICE} visits, and the longest stretch without a pause was ${attack.gap.toFixed(0)} ms.`,
    ["tools", "tools / characters", "pattern", "visits", "of the budget", "ms"],
    rows,
  );
}
