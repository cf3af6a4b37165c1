// catalog stats: tools per server and the token bill, full injection vs. the deferred prompt.

import { defineCommand } from "citty";
import { catalogLabel } from "../../worker/core/catalog.ts";
import { catalogArg, htmlArg, out, progress } from "../args.ts";
import { readCatalogFile, writeOutput } from "../lib/files.ts";
import { catalogHtml } from "../lib/html.ts";
import { catalogStats } from "../lib/stats.ts";

export default defineCommand({
  meta: { name: "stats", description: "Tools per server, tokens for full injection (every schema in OpenAI tools form) vs. the deferred prompt (names section + toolSearch + core tools), the ratio, and the 10 largest tools." },
  args: { catalog: catalogArg, json: { type: "boolean", description: "Print one JSON object", default: false }, html: htmlArg },
  async run({ args }) {
    const { catalog } = await readCatalogFile(args.catalog);
    const s = await catalogStats(catalog);
    if (args.html) {
      await writeOutput(args.html, await catalogHtml(catalog, s));
      progress(`wrote ${args.html}`);
    }
    if (args.json) return out(JSON.stringify(s, null, 2));
    out(`${catalogLabel(catalog)}: ${s.tools} tools from ${s.servers} servers (${s.encoding})`);
    out();
    for (const p of s.perServer) out(`  ${p.name.padEnd(32)} ${String(p.tools).padStart(5)}  ${p.transport}`);
    out();
    out(`  full injection    ${String(s.tokens.full).padStart(9)} tokens`);
    out(`  deferred prompt   ${String(s.tokens.deferred).padStart(9)} tokens  (${(s.tokens.ratio * 100).toFixed(1)}% of full)`);
    out(`    names section   ${String(s.tokens.namesSection).padStart(9)} tokens  (${s.tokens.perDeferredTool.toFixed(1)} per deferred tool)`);
    out(`    core tools      ${String(s.tokens.coreTools).padStart(9)}`);
    out();
    out("  largest tools:");
    for (const l of s.largest) out(`    ${String(l.tokens).padStart(6)}  ${l.name}`);
  },
});
