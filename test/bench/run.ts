// `npm run bench`: every benchmark on this machine, written to test/bench/RESULTS.md with the
// machine, versions and date. Not part of `npm test`. `npm run bench -- <section>` prints one
// section (tokens, cold, latency, load, build, gate, quota, regex, code, floor); with --write it replaces just that section. Figures are medians/percentiles of one run;
// compare rows within a table (same run), not across machines.
import { execFileSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { buildTimes } from "./build-time.ts";
import { benchCatalogs, ROOT } from "./catalogs.ts";
import { coldStart } from "./cold-start.ts";
import { gateSection } from "./gate.ts";
import { quotaSection } from "./quota.ts";
import { codeModeSection } from "./code-mode.ts";
import { regexSection } from "./regex.ts";
import { FLOOR_PARTS, floorSection } from "./floor.ts";
import { latency } from "./latency.ts";
import { RESULTS, replacePart, replaceSection, sections, table } from "./results.ts";
import { tokensSection } from "./tokens.ts";
import { throughput } from "./throughput.ts";

const f = (n: number, d = 1) => n.toFixed(d);

async function main() {
  const only = process.argv[2];
  const catalogs = await benchCatalogs();
  const workerd = execFileSync(join(ROOT, "node_modules/.bin/workerd"), ["--version"]).toString().trim();
  const wrangler = JSON.parse(await readFile(join(ROOT, "node_modules/wrangler/package.json"), "utf8")).version;
  const out: string[] = [
    "# Benchmark results",
    "",
    `Machine: ${cpus().length} x ${cpus()[0]?.model.trim()}, ${f(totalmem() / 2 ** 30, 0)} GiB. Node ${process.version}, ${workerd}, wrangler ${wrangler}. Date: ${new Date().toISOString().slice(0, 10)}.`,
    "Produced by `npm run bench` (test/bench/run.ts). The machine is shared and noisy: compare rows of one table, not runs.",
    "",
  ];

  if (!only || only === "tokens") out.push(await tokensSection(catalogs));
  if (!only || only === "cold") {
    const rows = await coldStart(catalogs);
    out.push(
      "## 2. Cold start and memory",
      "",
      "In workerd (wrangler dev), median request latency minus a no-op route: reading the catalog asset, `JSON.parse` of its bytes, the Worker's full load (hash check + parse + index restore), and rebuilding the index with `insertMultiple` instead. Heap: retained V8 heap after a load (Node, same objects). The last column repeats parse vs load in Node with a GC before each step: in workerd the garbage of one step can be collected inside the next request, which can put the JSON.parse median above the full load at 10,000 tools.",
      "",
    );
    out.push(
      table(
        [
          "catalog",
          "tools",
          "file MiB",
          "asset read ms",
          "JSON.parse ms",
          "full load ms",
          "load / parse",
          "rebuild index ms",
          "heap MiB",
          "Node: parse / load ms",
        ],
        rows.map((r) => [
          r.catalog,
          r.tools,
          f(r.fileMiB, 2),
          f(r.readMs),
          f(r.parseMs),
          f(r.loadMs),
          f(r.loadMs / r.parseMs, 2),
          f(r.rebuildMs, 0),
          f(r.heapMiB),
          `${f(r.nodeParseMs, 0)} / ${f(r.nodeLoadMs, 0)} (${f(r.nodeLoadMs / r.nodeParseMs, 2)})`,
        ]),
      ),
      "",
      "Targets at 10,000 tools: load under 1 s, at most 3 x JSON.parse, heap under 64 MiB.",
      "",
    );
  }

  if (!only || only === "latency") {
    const n = Number(process.env.BENCH_REQUESTS ?? 2000);
    const rows = await latency(catalogs, n);
    out.push(
      "## 3. toolSearch latency",
      "",
      `HTTP on 127.0.0.1 to the Worker in wrangler dev, ${n} sequential requests per row. A tool-search is the ranking plus one Durable Object call that records the activation (the session's frozen fields are cached per isolate). Target: keyword search adds at most 5 ms p99 over \`select:\` at 10,000 tools; \`select:\` flat in catalog size.`,
      "",
    );
    out.push(
      table(
        ["catalog", "tools", "route", "p50 ms", "p99 ms"],
        rows.map((r) => [r.catalog, r.tools, r.route, f(r.p50), f(r.p99)]),
      ),
      "",
    );
  }

  if (!only || only === "load") {
    const demo = catalogs[0]!;
    const t = await throughput(demo);
    out.push(
      "## 4. Throughput under load",
      "",
      `autocannon, 50 connections, 30 s, on the ${demo.label} catalog: the no-op route, then a mix over 1,000 pre-created sessions (10% session creation, 40% \`select:\`, 30% keyword search, 20% prompt fetch).`,
      "",
    );
    out.push(
      table(
        ["load", "requests", "req/s", "p50 ms", "p99 ms", "errors", "non-2xx"],
        t.rows.map((r) => [r.load, r.requests, f(r.rps, 0), f(r.p50), f(r.p99), r.errors, r.non2xx]),
      ),
      "",
    );
    out.push(
      `After the run, over ${t.checked} sessions: ${t.lost} activations lost (reported loaded, not stored), ${t.duplicated} stored twice, ${t.extra} stored without a response seen (requests in flight when the load stopped: at most ${t.inFlight}).`,
      "",
    );
  }
  if (!only || only === "build") {
    const b = await buildTimes();
    out.push(
      "## 5. Build",
      "",
      "`catalog build` of the demo catalog from its 12 stdio servers (concurrency 16) against each server's connect-and-list time alone.",
      "",
    );
    out.push(
      table(
        ["server", "tools", "alone ms"],
        b.servers.map((s) => [s.name, s.tools, f(s.ms, 0)]),
      ),
      "",
    );
    out.push(
      `Whole build: ${f(b.totalMs, 0)} ms for ${b.tools} tools (${f(b.bytes / 1024, 0)} KiB); slowest server alone: ${b.slowest.name}, ${f(b.slowest.ms, 0)} ms; ratio ${f(b.totalMs / b.slowest.ms, 2)} (target <= 1.5).`,
      "",
    );
  }

  if (!only || only === "gate") out.push(await gateSection());
  if (!only || only === "quota") out.push(await quotaSection());
  if (!only || only === "regex") out.push(await regexSection());
  if (!only || only === "code") out.push(await codeModeSection());
  if (!only || only === "floor") {
    const f = await floorSection();
    // Before and After are parts of one section: --write replaces the part BENCH_PART names
    if (only && process.argv.includes("--write")) {
      await replacePart(f.heading, f.intro, FLOOR_PARTS, f.part);
      return console.log(`wrote ${f.heading}, ${f.part.split("\n")[0]} of ${RESULTS}`);
    }
    out.push(f.heading, "", f.intro, "", f.part);
  }

  if (only && process.argv.includes("--write")) {
    // one section, written in place: the others (other owners' figures) are left as they are
    const [heading, ...body] = out
      .slice(out.findIndex((l) => l.startsWith("## ")))
      .join("\n")
      .split("\n");
    await replaceSection(heading!, body.join("\n").trim());
    return console.log(`wrote ${heading} of ${RESULTS}`);
  }
  if (only) return console.log(out.join("\n")); // one section: printed, RESULTS.md left whole
  // sections owned by other benches (bench:search, bench:agent) are kept as they are
  const mine = sections(out.join("\n")).byHeading;
  const kept = [...sections(await readFile(RESULTS, "utf8").catch(() => "")).byHeading].filter(
    ([h]) => !mine.has(h) && !/^## [1-5]\./.test(h),
  );
  await writeFile(RESULTS, `${[out.join("\n").trimEnd(), ...kept.map(([, s]) => s)].join("\n\n")}\n`);
  console.log(`wrote ${RESULTS}`);
}

await main();
process.exit(0);
