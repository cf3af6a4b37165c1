// `select:` names as models write them: the callable name, or a grouped listing's short name
// under its server (`github.create_issue`, `github__create_issue`, `github:create_issue`,
// `github/create_issue`), or a bare short name that only one tool has. Unknown names get the
// closest existing names; a bare short name that several servers have gets those tools' names.
// With `candidates` (the session's access view) a named tool outside it is `denied`, and only
// visible tools are suggested or resolve a bare short name.

import type { CatalogTool } from "./catalog.ts";
import { serverLabel, shortName } from "./listing.ts";
import { tokenize } from "./search-text.ts";

export interface SelectCatalog {
  tools: readonly CatalogTool[];
  byName: ReadonlyMap<string, CatalogTool>;
}

export type Resolved = { tool: CatalogTool } | { denied: CatalogTool } | { ambiguous: string[] } | { unknown: string[] };

interface ShortNames {
  /** `label\0short`, lowercased -> names */
  qualified: Map<string, string[]>;
  /** short, lowercased -> names */
  bare: Map<string, string[]>;
}

const shortNames = new WeakMap<readonly CatalogTool[], ShortNames>();

function shortIndex(tools: readonly CatalogTool[]): ShortNames {
  let idx = shortNames.get(tools);
  if (idx) return idx;
  idx = { qualified: new Map(), bare: new Map() };
  const add = (map: Map<string, string[]>, key: string, name: string) => map.set(key, [...(map.get(key) ?? []), name]);
  for (const t of tools) {
    const label = serverLabel(t.server);
    const short = shortName(t.name, label).toLowerCase();
    add(idx.qualified, `${label.toLowerCase()}\u0000${short}`, t.name);
    add(idx.bare, short, t.name);
  }
  shortNames.set(tools, idx);
  return idx;
}

/** `<label><sep><short>` splits of a name: every `.`, `:`, `/` and `__` is a candidate separator. */
function splits(name: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of name.matchAll(/__|[.:/]/g)) {
    const label = name.slice(0, m.index);
    const short = name.slice(m.index + m[0].length);
    if (label && short) out.push([label.replace(/^mcp__/i, ""), short]);
  }
  return out;
}

/** One `select:` name: the tool, the tools a bare short name is ambiguous between, or the closest names. */
export function resolveSelectName(cat: SelectCatalog, raw: string, candidates?: ReadonlySet<string>): Resolved {
  const visible = (n: string) => !candidates || candidates.has(n);
  const named = (t: CatalogTool): Resolved => (visible(t.name) ? { tool: t } : { denied: t });
  const exact = cat.byName.get(raw);
  if (exact) return named(exact);
  // "github: create_issue" as copied from a grouped line
  const name = raw.replace(/\s*([.:/])\s*/g, "$1").trim();
  const idx = shortIndex(cat.tools);
  const one = (names: string[] | undefined) => (names?.length === 1 ? cat.byName.get(names[0]!) : undefined);
  for (const [label, short] of splits(name)) {
    const found = one(idx.qualified.get(`${label.toLowerCase()}\u0000${short.toLowerCase()}`));
    if (found) return named(found);
  }
  const bare = idx.bare.get(name.toLowerCase())?.filter(visible);
  if (bare?.length === 1) return { tool: cat.byName.get(bare[0]!)! };
  if (bare && bare.length > 1) return { ambiguous: bare.slice(0, 5) };
  // suggestions: a qualified short name is compared as the full name it stands for
  const [split] = splits(name);
  return { unknown: closestNames(cat, split && !name.startsWith("mcp__") ? `mcp__${split[0]}__${split[1]}` : name, 3, candidates) };
}

/** Levenshtein distance, capped work: names are at most 64 characters (the CLI's flag hints use it too). */
export function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

const nameWords = new WeakMap<readonly CatalogTool[], Array<Set<string>>>();

/**
 * The 3 existing names closest to an unknown one: most shared words first, then edit distance.
 * Edit distance runs only on the best 100 by shared words and length (a select: of 20 unknown
 * names against 10,000 tools took seconds when every pair was compared).
 */
export function closestNames(cat: SelectCatalog, name: string, count = 3, candidates?: ReadonlySet<string>): string[] {
  let words = nameWords.get(cat.tools);
  if (!words) nameWords.set(cat.tools, (words = cat.tools.map((t) => new Set(tokenize(t.name)))));
  const wanted = name.slice(0, 64).toLowerCase();
  const query = [...new Set(tokenize(wanted))];
  // bucket by (shared words, length gap) instead of sorting every tool: linear in catalog size
  const buckets = new Map<number, number[]>();
  cat.tools.forEach((t, i) => {
    if (candidates && !candidates.has(t.name)) return;
    let shared = 0;
    for (const w of query) if (words[i]!.has(w)) shared++;
    const key = shared * 1000 + (999 - Math.min(999, Math.abs(t.name.length - wanted.length)));
    const list = buckets.get(key);
    if (list) list.push(i);
    else buckets.set(key, [i]);
  });
  const picked: number[] = [];
  for (const key of [...buckets.keys()].sort((a, b) => b - a)) {
    picked.push(...buckets.get(key)!);
    if (picked.length >= 100) break;
  }
  const shortlist = picked.slice(0, 100).map((i) => {
    const t = cat.tools[i]!;
    return { name: t.name, shared: query.filter((w) => words[i]!.has(w)).length, dist: distance(wanted, t.name.toLowerCase()) };
  });
  shortlist.sort((a, b) => b.shared - a.shared || a.dist - b.dist || (a.name < b.name ? -1 : 1));
  return shortlist.slice(0, count).map((s) => s.name);
}
