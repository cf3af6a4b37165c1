// Catalog files are bundled into the Worker (worker/files.ts), never served: only this module reads
// them. First use in an isolate: verify the hash, restore the index; then cached for the isolate's
// life, keyed by file name (catalog files are immutable: the name carries the content hash).
// Failures are not cached.

import { catalogLabel, verifyCatalog, type Catalog, type CatalogTool } from "./core/catalog.ts";
import { ToolsearchError } from "./core/errors.ts";
import { searchCatalog, type SearchCatalog } from "./core/search.ts";
import { catalogText } from "./files.ts";

export interface LoadedCatalog extends SearchCatalog {
  file: string;
  /** the catalog without its serialized index (restored into `index`, then let go) */
  catalog: Omit<Catalog, "index">;
  label: string;
  byName: ReadonlyMap<string, CatalogTool>;
  /** ms spent verifying + restoring, for the cold-start benchmark */
  loadMs: number;
}

const FILE_RE = /^[A-Za-z0-9][A-Za-z0-9@._-]{0,200}\.json$/;
const HASHED_RE = /^.+@.+\.([0-9a-f]{12})\.json$/;
const cache = new Map<string, Promise<LoadedCatalog>>();

/** The label a file name promises (`name@version#hash12`), without reading the file. */
export function labelFromFile(file: string): string {
  const m = /^(.+@[^.]+\.[^.]+\.[^.]+?)(?:\.([0-9a-f]{12}))?\.json$/.exec(file);
  return m ? `${m[1]}${m[2] ? `#${m[2]}` : ""}` : file;
}

async function read(file: string): Promise<LoadedCatalog> {
  const started = Date.now();
  if (!FILE_RE.test(file)) throw new ToolsearchError("catalog_invalid", `catalog file name "${file}" is not valid`);
  const text = catalogText(file);
  if (text === undefined)
    throw new ToolsearchError("catalog_missing", `catalog ${file} is not deployed (no such file in catalogs/ when the Worker was built)`);
  let verified;
  try {
    verified = await verifyCatalog(text);
  } catch (e) {
    if (e instanceof ToolsearchError) throw new ToolsearchError("catalog_invalid", `catalog ${file} is refused: ${e.message}`);
    throw e;
  }
  const { catalog: full, index } = verified;
  const { index: _serialized, ...catalog } = full;
  const named = HASHED_RE.exec(file);
  if (named && named[1] !== catalog.hash.slice(0, 12)) {
    throw new ToolsearchError(
      "catalog_invalid",
      `catalog ${file} is refused: its name says hash ${named[1]}, its content is ${catalog.hash.slice(0, 12)}`,
    );
  }
  return { file, catalog, ...searchCatalog(catalog.tools, index), label: catalogLabel(catalog), loadMs: Date.now() - started };
}

export function loadCatalog(file: string): Promise<LoadedCatalog> {
  let p = cache.get(file);
  if (!p) {
    p = read(file);
    cache.set(file, p);
    p.catch(() => cache.delete(file));
  }
  return p;
}
