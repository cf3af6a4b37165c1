// catalog diff: tools added, removed and changed between two catalogs, and the semver class.

import { defineCommand } from "citty";
import { catalogLabel } from "../../worker/core/catalog.ts";
import { htmlArg, jsonArg, out, progress } from "../args.ts";
import { diffCatalogs } from "../lib/diff.ts";
import { readCatalogFile, writeOutput } from "../lib/files.ts";
import { diffHtml } from "../lib/html.ts";

export default defineCommand({
  meta: {
    name: "diff",
    description:
      "Compare two catalogs: tools added, removed, changed (schema vs. description), server metadata changed (title, description, instructions, version, summary), " +
      "the semver bump that calls for, and which listing forms' deferred prompt bytes change.",
  },
  args: {
    old: { type: "positional", description: "Older catalog file", required: true },
    new: { type: "positional", description: "Newer catalog file", required: true },
    json: jsonArg,
    html: htmlArg,
  },
  async run({ args }) {
    const [a, b] = await Promise.all([readCatalogFile(args.old), readCatalogFile(args.new)]);
    const d = diffCatalogs(a.catalog, b.catalog);
    if (args.html) {
      await writeOutput(args.html, await diffHtml(a.catalog, b.catalog));
      progress(`wrote ${args.html}`);
    }
    if (args.json) return out(JSON.stringify({ old: catalogLabel(a.catalog), new: catalogLabel(b.catalog), ...d }, null, 2));
    out(`${catalogLabel(a.catalog)} -> ${catalogLabel(b.catalog)}: ${d.bump === "none" ? "identical" : `${d.bump} change`}`);
    for (const n of d.added) out(`  + ${n}`);
    for (const n of d.removed) out(`  - ${n}`);
    for (const c of d.changed) out(`  ~ ${c.name} (${c.kind})`);
    for (const m of d.metadata) out(`  ~ server ${m.server}: ${m.fields.join(", ")}`);
    for (const o of d.other) out(`  * ${o}`);
    out(
      `deferred prompt bytes: ${d.deferredPromptChanged ? `change in ${d.listingsChanged.join(", ")} (sessions started on the new catalog in that form get a new prefix)` : "unchanged"}`,
    );
  },
});
