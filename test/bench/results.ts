// test/bench/RESULTS.md is written by several commands: `npm run bench` (sections 1-5), and the
// benches that own one section each (`bench:search`, `bench:agent`) replace just their own.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ROOT } from "./catalogs.ts";

export const RESULTS = join(ROOT, "test/bench/RESULTS.md");

/** The demo catalog file pinned by wrangler.toml's CATALOG. */
export async function pinnedDemo(): Promise<string> {
  const m = /^CATALOG = "([^"]+)"/m.exec(await readFile(join(ROOT, "wrangler.toml"), "utf8"));
  if (!m) throw new Error("wrangler.toml has no CATALOG line");
  return m[1]!;
}

/** Split a results file into its preamble and `## ` sections, by heading. */
export function sections(text: string): { preamble: string; byHeading: Map<string, string> } {
  const parts = text.split(/^(?=## )/m);
  const preamble = parts[0]!.startsWith("## ") ? "" : parts.shift()!;
  return { preamble, byHeading: new Map(parts.map((p) => [p.split("\n")[0]!, p.trimEnd()])) };
}

/** Replace (or append) one section; the date line says when this section was measured. */
export async function replaceSection(heading: string, body: string): Promise<void> {
  const text = await readFile(RESULTS, "utf8").catch(() => "# Benchmark results\n\n");
  const { preamble, byHeading } = sections(text);
  byHeading.set(heading, `${heading}\n\nMeasured ${new Date().toISOString().slice(0, 10)}.\n\n${body.trimEnd()}`);
  const ordered = [...byHeading.entries()].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }));
  await writeFile(RESULTS, `${preamble.trimEnd()}\n\n${ordered.map(([, s]) => s).join("\n\n")}\n`);
}

/** A markdown table. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
