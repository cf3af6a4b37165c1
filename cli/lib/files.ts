// Catalog files on disk: read-and-verify, find the committed file of a name@version, and write
// atomically (temp file + rename in the same directory) so a reader never sees half a catalog.

import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { verifyCatalog, type VerifiedCatalog } from "../../worker/core/catalog.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";

export async function readCatalogFile(path: string): Promise<VerifiedCatalog & { text: string }> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    throw new ToolsearchError("catalog_missing", `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return { ...(await verifyCatalog(text, { strict: true })), text };
  } catch (e) {
    if (e instanceof ToolsearchError) throw new ToolsearchError(e.code, `${path}: ${e.message}`);
    throw e;
  }
}

/** Files in `dir` named `<name>@<version>.<hash12>.json`. */
export async function findCatalogFiles(dir: string, name: string, version: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch {
    return [];
  }
  const prefix = `${name}@${version}.`;
  return entries
    .filter((f) => f.startsWith(prefix) && /^[0-9a-f]{12}\.json$/.test(f.slice(prefix.length)))
    .sort()
    .map((f) => join(dir, f));
}

export async function writeAtomic(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await mkdir(join(path, ".."), { recursive: true });
  try {
    await writeFile(tmp, text, "utf8");
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/** A file the user asked for (--html): written atomically; a failure is one clear line. */
export async function writeOutput(path: string, text: string): Promise<void> {
  try {
    await writeAtomic(path, text);
  } catch (e) {
    throw new ToolsearchError("bad_request", `cannot write ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
}
