// catalog build: snapshot the configured MCP servers into catalogs/<name>@<version>.<hash12>.json.

import { defineCommand } from "citty";
import { catalogLabel } from "../../worker/core/catalog.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { configArg, fmtMs, out, outDirArg, progress } from "../args.ts";
import { loadConfig } from "../lib/config.ts";
import { findCatalogFiles, readCatalogFile } from "../lib/files.ts";
import { publishCatalog } from "../lib/publish.ts";

export default defineCommand({
  meta: {
    name: "build",
    description:
      "Snapshot the MCP servers in the config (stdio, http, sse or recorded tools/list files) into a " +
      "versioned, content-addressed catalog file with token counts and a pre-built search index (with the search text " +
      "the config names, docs/search-text.md). " +
      "Same servers, same bytes. With --check, build in memory and fail if the committed catalog differs.",
  },
  args: {
    config: configArg,
    out: outDirArg,
    check: {
      type: "boolean",
      description: "Build in memory; exit 1 naming what changed if it differs from the committed catalog",
      default: false,
    },
    "if-missing": {
      type: "boolean",
      description: "Skip the build when a verified catalog of this name@version is already there (npm start uses this)",
      default: false,
    },
    concurrency: { type: "string", description: "Servers contacted at once", default: "8", valueHint: "n" },
  },
  async run({ args }) {
    const concurrency = Number(args.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new ToolsearchError("bad_request", `--concurrency must be a positive integer, got "${args.concurrency}"`);
    const config = await loadConfig(args.config);
    if (args["if-missing"] && !args.check) {
      const [existing] = await findCatalogFiles(args.out, config.name, config.version);
      if (existing) {
        const { catalog } = await readCatalogFile(existing);
        return out(`exists: ${existing} (${catalogLabel(catalog)}, ${catalog.tools.length} tools); not rebuilt`);
      }
    }
    progress(`building ${config.name}@${config.version} from ${config.servers.length} server entries (${config.encoding})`);
    const started = Date.now();
    const result = await publishCatalog(config, {
      outDir: args.out,
      check: args.check,
      concurrency,
      onServer: (r) =>
        progress(
          r.ok
            ? `  ok    ${r.source.padEnd(24)} ${String(r.tools).padStart(5)} tools${r.servers > 1 ? ` in ${r.servers} servers` : ""}  ${fmtMs(r.ms)}`
            : `  FAIL  ${r.source.padEnd(24)} ${r.error}  ${fmtMs(r.ms)}`,
        ),
    });
    for (const w of result.build.warnings) progress(`warning: ${w}`);
    const c = result.build.catalog;
    const summary = `${c.servers.length} servers, ${c.tools.length} tools, ${(result.build.text.length / 1024).toFixed(0)} KiB, ${fmtMs(Date.now() - started)}`;
    if (result.status === "checked") out(`up to date: ${catalogLabel(c)} matches ${result.path} (${summary})`);
    else if (result.status === "unchanged") out(`unchanged: ${result.path} (${summary})`);
    else out(`wrote ${result.path} (${summary})`);
  },
});
