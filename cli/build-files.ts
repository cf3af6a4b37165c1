#!/usr/bin/env node
// `npm run build:files [catalogDir] [out]`: bundle the catalog files of catalogs/ and the page
// (worker/page/) into worker/generated/files.ts, the module the Worker serves them from
// (cli/lib/worker-files.ts). wrangler.toml's [build] runs it before `wrangler dev` and `wrangler deploy`.

import { join } from "node:path";
import { writeWorkerFiles } from "./lib/worker-files.ts";

const root = join(import.meta.dirname, "..");
const dir = process.argv[2] ?? join(root, "catalogs");
const out = process.argv[3] ?? join(root, "worker/generated/files.ts");
const s = await writeWorkerFiles(dir, out);
const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
const list = (xs: Array<{ file: string; bytes: number }>) => xs.map((x) => `${x.file} ${kib(x.bytes)}`).join(", ") || "none";
process.stderr.write(`worker files: ${s.written ? "wrote" : "up to date"} ${out}: catalogs ${list(s.catalogs)}; page ${list(s.page)}\n`);
