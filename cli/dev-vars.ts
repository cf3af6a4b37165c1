#!/usr/bin/env node
// The development key from the command line (lib/dev-vars.ts holds the file's rules):
//   node cli/dev-vars.ts init   writes .dev.vars when it is missing and prints its key (npm start)
//   node cli/dev-vars.ts key    prints the key alone, for the walkthroughs (`npm run -s key`):
//                               A="authorization: Bearer $(npm run -s key)"

import { DevVarsError, devKey, initDevVars } from "./lib/dev-vars.ts";

try {
  const verb = process.argv[2];
  if (verb === "init") initDevVars();
  else if (verb === "key") process.stdout.write(`${devKey()}\n`);
  else throw new DevVarsError("usage: node cli/dev-vars.ts init | key");
} catch (e) {
  if (!(e instanceof DevVarsError)) throw e;
  process.stderr.write(`dev-vars: ${e.message}\n`);
  process.exit(1);
}
