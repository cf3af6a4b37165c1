// catalog stats: tools per server and the token bill, full injection vs. the deferred prompt in
// every listing form, the form `auto` picks for a context window, and code mode's declarations.

import { defineCommand } from "citty";
import { catalogLabel } from "../../worker/core/catalog.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { LISTING_FORMS } from "../../worker/core/listing.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { catalogArg, htmlArg, out, progress } from "../args.ts";
import { readCatalogFile, writeOutput } from "../lib/files.ts";
import { catalogHtml } from "../lib/html.ts";
import { catalogStats } from "../lib/stats.ts";

export default defineCommand({
  meta: {
    name: "stats",
    description:
      "Tools per server (with the one-line summary the servers listing shows), tokens for full injection (every schema in OpenAI tools form) " +
      "vs. the deferred prompt (listing section + toolSearch + core tools) in each listing form (names, grouped, servers, none), the form " +
      "auto picks for a context window, every tool as TypeScript declarations (code mode), and the 10 largest tools. --json: tokens.deferred is the auto form's prompt, tokens.forms every form's. " +
      "--html writes the same as one self-contained page.",
  },
  args: {
    catalog: catalogArg,
    window: { type: "string", description: "Context window auto decides for, in tokens", default: "128000", valueHint: "tokens" },
    budget: {
      type: "string",
      description: `Share of the window the listing may take (POLICY.listingBudget)`,
      default: String(DEFAULT_POLICY.listingBudget),
      valueHint: "0-1",
    },
    json: { type: "boolean", description: "Print one JSON object", default: false },
    html: htmlArg,
  },
  async run({ args }) {
    const window = Number(args.window);
    const budget = Number(args.budget);
    if (!Number.isInteger(window) || window < 1)
      throw new ToolsearchError("bad_request", `--window must be a positive integer, got "${args.window}"`);
    if (!(budget >= 0 && budget <= 1))
      throw new ToolsearchError("bad_request", `--budget must be a number from 0 to 1, got "${args.budget}"`);
    const { catalog } = await readCatalogFile(args.catalog);
    const s = await catalogStats(catalog, { window, budget });
    if (args.html) {
      await writeOutput(args.html, await catalogHtml(catalog, s));
      progress(`wrote ${args.html}`);
    }
    if (args.json) return out(JSON.stringify(s, null, 2));
    out(`${catalogLabel(catalog)}: ${s.tools} tools from ${s.servers} servers (${s.encoding})`);
    out();
    for (const p of s.perServer) out(`  ${p.name.padEnd(32)} ${String(p.tools).padStart(5)}  ${p.transport.padEnd(8)}  ${p.summary}`);
    out();
    const pct = (n: number) => `${((n / s.tokens.full) * 100).toFixed(2)}% of full`;
    out(`  full injection        ${String(s.tokens.full).padStart(9)} tokens  (the sum of each tool's stored count, as GET /v1/catalog)`);
    const decl = s.tokens.declarations;
    out(
      decl === null
        ? "  as declarations       (not counted: the catalog was built before code mode; rebuild it)"
        : `  as declarations       ${String(decl).padStart(9)} tokens  (every tool as a TypeScript declaration, code mode; ${(decl / s.tokens.full).toFixed(2)}x full)`,
    );
    out(`  deferrable tools      ${String(s.tokens.deferrable).padStart(9)} tokens  (all but alwaysLoad: what a session's reason weighs)`);
    out(`  deferred prompt, by listing form (section + toolSearch + ${s.tokens.coreTools} core tools):`);
    for (const f of LISTING_FORMS) {
      const mark = f === s.tokens.auto.form ? `  <- auto at ${s.tokens.auto.window}` : "";
      out(
        `    ${f.padEnd(8)}          ${String(s.tokens.forms[f]).padStart(9)} tokens  (${pct(s.tokens.forms[f])}; section ${s.tokens.sections[f]})${mark}`,
      );
    }
    out(`  auto: ${s.tokens.auto.reason}`);
    out(`  names section per deferred tool: ${s.tokens.perDeferredTool.toFixed(1)} tokens`);
    out();
    out("  largest tools:");
    for (const l of s.largest) out(`    ${String(l.tokens).padStart(6)}  ${l.name}`);
  },
});
