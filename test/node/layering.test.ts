// The Worker's and the CLI's import graph: no cycles (a file's name says what it holds, and what it
// needs comes from below it), and worker/core/ imports nothing outside itself but packages. The
// graph is read from the source (every relative `from "…"`, type imports included), so a cycle
// that only types close still shows: it is the same tangle for a reader.
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.ts";

type Graph = Map<string, string[]>;

async function importGraph(dirs: string[]): Promise<Graph> {
  const graph: Graph = new Map();
  for (const dir of dirs) {
    const files = (await readdir(join(ROOT, dir), { recursive: true })).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
    for (const f of files) {
      const path = join(dir, f);
      const text = await readFile(join(ROOT, path), "utf8");
      const deps = [...text.matchAll(/from\s+["'](\.{1,2}\/[^"']+\.ts)["']/g)].map((m) => normalize(join(dirname(path), m[1]!)));
      graph.set(path, deps);
    }
  }
  return graph;
}

/** Every cycle's files, as found by a depth-first walk (each cycle once, from its first file reached). */
function cycles(graph: Graph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const walk = (file: string) => {
    state.set(file, "open");
    stack.push(file);
    for (const dep of graph.get(file) ?? []) {
      if (state.get(dep) === "open") found.push(stack.slice(stack.indexOf(dep)));
      else if (!state.has(dep) && graph.has(dep)) walk(dep);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) walk(file);
  return found;
}

describe("import graph", () => {
  it("finds a cycle when there is one", () => {
    const g: Graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(cycles(g)).toEqual([["a.ts", "b.ts", "c.ts"]]);
  });

  it("worker/ and cli/ have no import cycles", async () => {
    const graph = await importGraph(["worker", "cli"]);
    expect(graph.size).toBeGreaterThan(50);
    expect(cycles(graph).map((c) => c.join(" -> "))).toEqual([]);
  });

  it("worker/core/ imports only worker/core/", async () => {
    const graph = await importGraph(["worker/core"]);
    const outside = [...graph].flatMap(([file, deps]) => deps.filter((d) => !d.startsWith("worker/core/")).map((d) => `${file} -> ${d}`));
    expect(outside).toEqual([]);
  });
});
