#!/usr/bin/env node
// `npm run build:page [dir]`: bundle the Worker's page into its assets directory (default
// catalogs/page/). wrangler.toml's [build] runs it before `wrangler dev` and `wrangler deploy`.

import { stat } from "node:fs/promises";
import { join } from "node:path";
import { writePage } from "./lib/page.ts";

const dir = process.argv[2] ?? join(import.meta.dirname, "../catalogs/page");
const written = await writePage(dir);
const sizes = await Promise.all(["index.html", "page.js", "page.css"].map(async (f) => `${f} ${(await stat(join(dir, f))).size} B`));
process.stderr.write(`page: ${written.length ? `wrote ${written.join(", ")}` : "up to date"} in ${dir} (${sizes.join(", ")})\n`);
