// What changed between two catalogs, and the semver bump it calls for: tools removed or a schema
// changed -> major (calls that worked may now fail); tools added -> minor; descriptions, titles,
// annotations, server metadata (title, description, instructions, version, summary) or build
// details only -> patch. Also which listing forms' bytes change, since that is what invalidates
// the prefix cache of every session in that form.

import type { Catalog, CatalogServer, CatalogTool } from "../../worker/core/catalog.ts";
import { canonicalJson } from "../../worker/core/canonical.ts";
import { LISTING_FORMS, listingSection, serverEntries, toolEntries, type ListingForm } from "../../worker/core/listing.ts";

export type Bump = "none" | "patch" | "minor" | "major";

export interface CatalogDiff {
  added: string[];
  removed: string[];
  changed: Array<{ name: string; kind: "schema" | "description" }>;
  /** servers in both whose metadata differs, and which fields */
  metadata: Array<{ server: string; fields: string[] }>;
  /** anything else that differs: servers added or removed, transports, build config, token counts */
  other: string[];
  bump: Bump;
  /** some listing form's section bytes change */
  deferredPromptChanged: boolean;
  /** the listing forms whose section bytes change */
  listingsChanged: ListingForm[];
}

const schemaOf = (t: CatalogTool) => canonicalJson([t.inputSchema, t.outputSchema ?? null, t.alwaysLoad ?? false]);
const textOf = (t: CatalogTool) => canonicalJson([t.description, t.title ?? null, t.annotations ?? null]);

export function deferredNames(c: Catalog): string[] {
  return c.tools.filter((t) => !t.alwaysLoad).map((t) => t.name);
}

const META_FIELDS = ["title", "description", "instructions", "summary"] as const;

/** Per server in both catalogs: the metadata fields that differ (`version 1.0 -> 1.1`). */
function metadataChanges(a: Catalog, b: Catalog): CatalogDiff["metadata"] {
  const before = new Map(a.servers.map((s) => [s.name, s]));
  const out: CatalogDiff["metadata"] = [];
  for (const s of b.servers) {
    const old = before.get(s.name);
    if (!old) continue;
    const fields: string[] = META_FIELDS.filter((f) => (old[f] ?? null) !== (s[f] ?? null)).map(
      (f) => `${f} ${old[f] === undefined ? "added" : s[f] === undefined ? "removed" : "changed"}`,
    );
    const info = (x: CatalogServer) => x.serverInfo ?? { name: "", version: "" };
    if (info(old).name !== info(s).name) fields.push(`serverInfo name ${info(old).name || "(none)"} -> ${info(s).name || "(none)"}`);
    if (info(old).version !== info(s).version) fields.push(`version ${info(old).version || "(none)"} -> ${info(s).version || "(none)"}`);
    if (fields.length) out.push({ server: s.name, fields });
  }
  return out;
}

function listingOf(c: Catalog, form: ListingForm): string {
  return listingSection(form, toolEntries(c.tools.filter((t) => !t.alwaysLoad)), serverEntries(c.servers));
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
    if (schemaOf(old) !== schemaOf(t) || old.server !== t.server || old.originalName !== t.originalName)
      changed.push({ name: t.name, kind: "schema" });
    else if (textOf(old) !== textOf(t)) changed.push({ name: t.name, kind: "description" });
    else if (canonicalJson(old.tokens) !== canonicalJson(t.tokens)) other.push(`token counts of ${t.name}`);
  }
  // tool counts follow from added/removed, metadata is listed per server; report what they do not show
  const namesOf = (c: Catalog) => c.servers.map((s) => `${s.name}/${s.transport}`).join(",");
  if (namesOf(a) !== namesOf(b)) other.push("servers (names or transports)");
  if (canonicalJson(a.build) !== canonicalJson(b.build))
    other.push(`build config (${canonicalJson(a.build)} -> ${canonicalJson(b.build)})`);
  const metadata = metadataChanges(a, b);
  const bump: Bump =
    removed.length || changed.some((c) => c.kind === "schema")
      ? "major"
      : added.length
        ? "minor"
        : changed.length || metadata.length || other.length || a.hash !== b.hash
          ? "patch"
          : "none";
  const listingsChanged = LISTING_FORMS.filter((f) => listingOf(a, f) !== listingOf(b, f));
  return { added, removed, changed, metadata, other, bump, deferredPromptChanged: listingsChanged.length > 0, listingsChanged };
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
    ...d.metadata.map((m) => `server ${m.server}: ${m.fields.join(", ")}`),
    ...d.other,
  ].filter(Boolean);
  return parts.length ? parts.join(", ") : "no differences";
}
