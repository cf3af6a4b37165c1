#!/usr/bin/env node
// `catalog`: the toolsearch catalog CLI. One file per subcommand in commands/; errors print one
// line and exit 1 (a ToolsearchError's message is written for the user; anything else is a bug
// and keeps its stack); an unknown command or flag exits 2 naming the closest real one
// (lib/strict-args.ts). --help is citty's, fitted to 100 columns (lib/usage.ts).

import { defineCommand, runCommand, runMain } from "citty";
import { isToolsearchError } from "../worker/core/errors.ts";
import { checkCommandLine, UsageError } from "./lib/strict-args.ts";
import { showUsage } from "./lib/usage.ts";

const main = defineCommand({
  meta: {
    name: "catalog",
    version: "0.1.0",
    description: "Snapshot MCP servers into versioned, pre-indexed tool catalogs, and inspect them.",
  },
  subCommands: {
    build: () => import("./commands/build.ts").then((m) => m.default),
    verify: () => import("./commands/verify.ts").then((m) => m.default),
    stats: () => import("./commands/stats.ts").then((m) => m.default),
    diff: () => import("./commands/diff.ts").then((m) => m.default),
    search: () => import("./commands/search.ts").then((m) => m.default),
    eval: () => import("./commands/eval.ts").then((m) => m.default),
    enrich: () => import("./commands/enrich.ts").then((m) => m.default),
  },
});

export async function cli(rawArgs: string[]): Promise<void> {
  if (rawArgs.length === 0 || rawArgs.some((a) => a === "--help" || a === "-h" || a === "--version" || a === "-v")) {
    return runMain(main, { rawArgs, showUsage });
  }
  try {
    await checkCommandLine(main, rawArgs);
    await runCommand(main, { rawArgs });
    process.exitCode = 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`catalog: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (isToolsearchError(e)) {
      process.stderr.write(`catalog: ${e.message}\n`);
    } else if ((e as Error)?.name === "CLIError") {
      process.stderr.write(`catalog: ${(e as Error).message}\n(see catalog ${rawArgs[0] ?? ""} --help)\n`);
    } else {
      process.stderr.write(`catalog: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
    }
    process.exitCode = 1;
  }
}

await cli(process.argv.slice(2));
// MCP clients and child processes can hold the event loop open once the work is done
process.exit(process.exitCode ?? 0);
