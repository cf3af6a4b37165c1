// What `catalog build` does with a freshly built catalog: write it, or (with --check) compare it
// with the committed file of the same name@version. A version is immutable once committed:
// different content under the same version is refused with the bump the change calls for.

import { join } from "node:path";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { buildCatalog, type BuildOptions, type BuildResult } from "./build.ts";
import type { BuildConfig } from "./config.ts";
import { bumpVersion, diffCatalogs, summarizeDiff } from "./diff.ts";
import { findCatalogFiles, readCatalogFile, writeAtomic } from "./files.ts";

export interface PublishOptions extends BuildOptions {
  outDir: string;
  check?: boolean;
}

export interface PublishResult {
  build: BuildResult;
  path: string;
  /** written: new file; unchanged: identical file already there; checked: --check passed */
  status: "written" | "unchanged" | "checked";
}

async function compareWithCommitted(result: BuildResult, outDir: string, check: boolean): Promise<string | null> {
  const { catalog } = result;
  const committed = await findCatalogFiles(outDir, catalog.name, catalog.version);
  const same = committed.find((p) => p.endsWith(result.fileName));
  if (same) {
    const existing = await readCatalogFile(same);
    if (existing.text === result.text) return same;
  }
  if (committed.length === 0) {
    if (check)
      throw new ToolsearchError(
        "version_conflict",
        `no committed catalog ${catalog.name}@${catalog.version} in ${outDir}: run catalog build and commit the file`,
      );
    return null;
  }
  const old = await readCatalogFile(committed.at(-1)!).catch((e: Error) => e);
  if (old instanceof Error) {
    // e.g. built by an older toolsearch whose index format this one cannot read
    throw new ToolsearchError(
      "version_conflict",
      `${catalog.name}@${catalog.version} is committed as ${committed.at(-1)} but differs and cannot be compared (${old.message}); set "version" to ${bumpVersion(catalog.version, "patch")} (patch) or later`,
    );
  }
  const diff = diffCatalogs(old.catalog, catalog);
  const bump = diff.bump === "none" ? "patch" : diff.bump;
  throw new ToolsearchError(
    "version_conflict",
    `${catalog.name}@${catalog.version} changed (${summarizeDiff(diff)}) without a version bump: ` +
      `set "version" to ${bumpVersion(catalog.version, bump)} (${bump})`,
  );
}

export async function publishCatalog(config: BuildConfig, opts: PublishOptions): Promise<PublishResult> {
  const build = await buildCatalog(config, opts);
  const existing = await compareWithCommitted(build, opts.outDir, !!opts.check);
  if (existing) return { build, path: existing, status: opts.check ? "checked" : "unchanged" };
  const path = join(opts.outDir, build.fileName);
  await writeAtomic(path, build.text);
  return { build, path, status: "written" };
}
