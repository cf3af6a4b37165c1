#!/usr/bin/env node
// `npm run build:page [dir]`: bundle the Worker's page into its assets directory (default
// catalogs/page/). wrangler.toml's [build] runs it before `wrangler dev` and `wrangler deploy`.

import { join } from "node:path";
import { writePage } from "./lib/page.ts";

const dir = process.argv[2] ?? join(import.meta.dirname, "../catalogs/page");
const written = await writePage(dir);
process.stderr.write(`page: ${written.length ? `wrote ${written.join(", ")}` : "up to date"} in ${dir}\n`);
