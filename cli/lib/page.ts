// The page's bundles (worker/page/, TypeScript + CSS) built with esbuild: bundled into the Worker
// before dev and deploy (wrangler.toml [build] runs `npm run build:files`, cli/lib/worker-files.ts),
// and inlined by `catalog stats --html` / `catalog diff --html` into one self-contained file.

import { build } from "esbuild";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { OfflineData } from "../../worker/page/types.ts";

const PAGE = join(import.meta.dirname, "../../worker/page");

/** The script and stylesheet of one entry: `main` (the served page) or `offline` (--html files). */
export async function bundlePage(entry: "main" | "offline"): Promise<{ js: string; css: string }> {
  const result = await build({
    entryPoints: [join(PAGE, `${entry}.ts`)],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    minify: true,
    legalComments: "none",
    outdir: "out",
    logLevel: "silent",
  });
  const text = (ext: string) => result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? "";
  return { js: text(".js"), css: text(".css") };
}

/** The served page's files: index.html, page.js and page.css, with their text. */
export async function pageFiles(): Promise<Array<[string, string]>> {
  const { js, css } = await bundlePage("main");
  const html = await readFile(join(PAGE, "index.html"), "utf8");
  return [
    ["index.html", html],
    ["page.js", js],
    ["page.css", css],
  ];
}

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * One HTML file holding the offline view, its data, script and style: it opens from disk with no
 * server, and its Content-Security-Policy forbids every request.
 */
export async function offlineHtml(title: string, data: OfflineData): Promise<string> {
  const { js, css } = await bundlePage("offline");
  // inside <script>, "</script" and "<!--" must not appear: the JSON escapes every "<", and
  // esbuild escapes them in the code's strings (checked, since a miss would break the file)
  const json = JSON.stringify(data).replace(/</g, "\\u003c");
  if (/<\/script|<!--/i.test(js) || /<\/style/i.test(css))
    throw new Error("the offline bundle holds </script, <!-- or </style and cannot be inlined");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<style>${css}</style>
</head>
<body>
<header class="top"><h1>toolsearch <span class="pinned">${escapeHtml(title)}</span></h1></header>
<main></main>
<script type="application/json" id="toolsearch-data">${json}</script>
<script>${js}</script>
</body>
</html>
`;
}
