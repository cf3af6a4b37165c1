// Exposed tool names: `mcp__<server>__<tool>` made safe for every provider. OpenAI's rule is the
// strictest (^[a-zA-Z0-9_-]{1,64}$; Anthropic allows 128 and MCP allows dots), so names follow it.
// Overflow is cut with a short hash of the original pair; collisions after sanitising are settled
// by sorting the originals, so the result never depends on the order servers answered in.

import { fnv1a64 } from "./canonical.ts";

export const EXPOSED_NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX = 64;
const SUFFIX = 9; // "_" + 8 hex

export function sanitizePart(text: string): string {
  const safe = text
    .normalize("NFKC")
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return safe || "x";
}

function withSuffix(base: string, server: string, tool: string): string {
  return `${base.slice(0, MAX - SUFFIX)}_${fnv1a64(`${server}\u0000${tool}`).slice(0, 8)}`;
}

export function exposedName(server: string, tool: string): string {
  const base = `mcp__${sanitizePart(server)}__${sanitizePart(tool)}`;
  return base.length <= MAX ? base : withSuffix(base, server, tool);
}

export interface NamedRef {
  server: string;
  originalName: string;
}

export interface NameAssignment<T extends NamedRef> {
  named: Array<T & { name: string }>;
  /** one line per collision group, naming the originals and what each became */
  warnings: string[];
}

/** Give every tool its exposed name; the first of a colliding group (by server, name) keeps it. */
export function assignExposedNames<T extends NamedRef>(tools: readonly T[]): NameAssignment<T> {
  const groups = new Map<string, T[]>();
  for (const t of tools) {
    const name = exposedName(t.server, t.originalName);
    groups.set(name, [...(groups.get(name) ?? []), t]);
  }
  const named: Array<T & { name: string }> = [];
  const warnings: string[] = [];
  const taken = new Set(groups.keys());
  for (const [name, group] of groups) {
    group.sort((a, b) => cmp(a.server, b.server) || cmp(a.originalName, b.originalName));
    named.push({ ...group[0]!, name });
    if (group.length === 1) continue;
    const renamed = group.slice(1).map((t) => {
      const alt = withSuffix(name, t.server, t.originalName);
      if (taken.has(alt) || !EXPOSED_NAME_RE.test(alt)) {
        throw new Error(`cannot give ${t.server}/${t.originalName} a unique exposed name (${alt})`);
      }
      taken.add(alt);
      named.push({ ...t, name: alt });
      return `${t.server}/${t.originalName} -> ${alt}`;
    });
    warnings.push(
      `${group.map((t) => `${t.server}/${t.originalName}`).join(", ")} all map to ${name}; ` +
        `kept it for ${group[0]!.server}/${group[0]!.originalName}, renamed ${renamed.join(", ")}`,
    );
  }
  named.sort((a, b) => cmp(a.name, b.name));
  return { named, warnings };
}

/** Code-unit order, the same order canonical JSON sorts keys in (never locale-dependent). */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
