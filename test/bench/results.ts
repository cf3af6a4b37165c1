// test/bench/RESULTS.md is written by several commands: `npm run bench` (sections 1-5), and the
// benches that own one section each (`bench:search`, `bench:agent`) replace just their own; a
// bench with several modes (`bench:exec`) replaces one `### ` part of its section (replacePart).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
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

/**
 * Replace one `### ` part of a section, keeping its other parts as they were; parts are ordered by
 * `order` (heading prefixes), and parts whose heading matches none of them are dropped.
 */
export async function replacePart(heading: string, intro: string, order: string[], part: string): Promise<void> {
  const text = await readFile(RESULTS, "utf8").catch(() => "");
  const old = sections(text).byHeading.get(heading) ?? "";
  const parts = new Map(
    old
      .split(/^(?=### )/m)
      .slice(1)
      .map((p) => [p.split("\n")[0]!, p.trimEnd()]),
  );
  parts.set(part.split("\n")[0]!, part.trimEnd());
  const rank = (h: string) => order.findIndex((o) => h.startsWith(o));
  const kept = [...parts.entries()].filter(([h]) => rank(h) >= 0).sort(([a], [b]) => rank(a) - rank(b));
  await replaceSection(heading, [intro.trimEnd(), ...kept.map(([, p]) => p)].join("\n\n"));
}

/** Where and when: `nproc`, the CPU model from /proc/cpuinfo, Node, the load average now, the date. */
export function machineLine(): string {
  const nproc = execFileSync("nproc", { encoding: "utf8" }).trim();
  const model = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpus()[0]?.model;
  const date = new Date().toISOString().slice(0, 16).replace("T", " ");
  return `Machine: ${nproc} x ${model} (nproc), Node ${process.version}, load average ${loadavg()[0]!.toFixed(1)} at the end of the run, ${date} UTC.`;
}

/** The median of `xs` (the upper one of an even count). */
export const p50 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A section as the paired benches write it: heading, what was measured, the table. */
export function tableSection(heading: string, intro: string, head: string[], rows: Array<Array<string | number>>): string {
  return [heading, "", intro, "", table(head, rows), ""].join("\n");
}

/** A markdown table. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
