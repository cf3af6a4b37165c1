// What changed between two catalogs, and the semver bump it calls for: tools removed or a schema
// changed -> major (calls that worked may now fail); tools added -> minor; descriptions, titles,
// annotations, server info or build details only -> patch. Also whether the deferred prompt bytes
// change, since that is what invalidates every session's prefix cache.

import type { Catalog, CatalogTool } from "../../worker/core/catalog.ts";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { deferredSection } from "../../worker/core/prompt.ts";

export type Bump = "none" | "patch" | "minor" | "major";

export interface CatalogDiff {
  added: string[];
  removed: string[];
  changed: Array<{ name: string; kind: "schema" | "description" }>;
  /** anything else that differs: servers, build config, token counts */
  other: string[];
  bump: Bump;
  deferredPromptChanged: boolean;
}

const schemaOf = (t: CatalogTool) => canonicalJson([t.inputSchema, t.outputSchema ?? null, t.alwaysLoad ?? false]);
const textOf = (t: CatalogTool) => canonicalJson([t.description, t.title ?? null, t.annotations ?? null]);

export function deferredNames(c: Catalog): string[] {
  return c.tools.filter((t) => !t.alwaysLoad).map((t) => t.name);
}

export function diffCatalogs(a: Catalog, b: Catalog): CatalogDiff {
  const before = new Map(a.tools.map((t) => [t.name, t]));
  const after = new Map(b.tools.map((t) => [t.name, t]));
  const added = b.tools.filter((t) => !before.has(t.name)).map((t) => t.name);
  const removed = a.tools.filter((t) => !after.has(t.name)).map((t) => t.name);
  const changed: CatalogDiff["changed"] = [];
  const other: string[] = [];
  for (const t of b.tools) {
    const old = before.get(t.name);
    if (!old) continue;
    if (schemaOf(old) !== schemaOf(t) || old.server !== t.server || old.originalName !== t.originalName) changed.push({ name: t.name, kind: "schema" });
    else if (textOf(old) !== textOf(t)) changed.push({ name: t.name, kind: "description" });
    else if (canonicalJson(old.tokens) !== canonicalJson(t.tokens)) other.push(`token counts of ${t.name}`);
  }
  // tool counts follow from added/removed; report what they do not show
  const serversOf = (c: Catalog) => canonicalJson(c.servers.map(({ tools: _n, ...s }) => s));
  if (serversOf(a) !== serversOf(b)) other.push("servers (names, transports or serverInfo)");
  if (canonicalJson(a.build) !== canonicalJson(b.build)) other.push(`build config (${canonicalJson(a.build)} -> ${canonicalJson(b.build)})`);
  const bump: Bump =
    removed.length || changed.some((c) => c.kind === "schema")
      ? "major"
      : added.length
        ? "minor"
        : changed.length || other.length || a.hash !== b.hash
          ? "patch"
          : "none";
  const deferredPromptChanged = deferredSection(deferredNames(a)) !== deferredSection(deferredNames(b));
  return { added, removed, changed, other, bump, deferredPromptChanged };
}

export function bumpVersion(version: string, bump: Exclude<Bump, "none">): string {
  const [major, minor, patch] = version.split(/[.-]/).map(Number) as [number, number, number];
  if (bump === "major") return `${major + 1}.0.0`;
  if (bump === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** One line: `2 added, 1 removed, 3 schema changed, 1 description changed`. */
export function summarizeDiff(d: CatalogDiff): string {
  const schema = d.changed.filter((c) => c.kind === "schema").length;
  const text = d.changed.length - schema;
  const parts = [
    d.added.length && `${d.added.length} added (${d.added.slice(0, 3).join(", ")}${d.added.length > 3 ? ", ..." : ""})`,
    d.removed.length && `${d.removed.length} removed (${d.removed.slice(0, 3).join(", ")}${d.removed.length > 3 ? ", ..." : ""})`,
    schema && `${schema} schema changed`,
    text && `${text} description changed`,
    ...d.other,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "no differences";
}
