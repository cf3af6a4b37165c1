// The files this deployment serves, bundled into the Worker (cli/lib/worker-files.ts generates the
// module): its catalog files, which stay private (only worker/catalogs.ts reads them), and the page
// (worker/routes/page.ts). The entry module hands them over once, at import (worker/main.ts; the
// tests' test/worker/main.ts gives the test catalogs): no Static Assets, so no assets router in
// front of every request (docs/deployment.md, "Catalogs in the bundle").

export interface PageFile {
  /** the content-type header */
  type: string;
  /** a strong ETag of the body */
  etag: string;
  body: string;
}

export interface WorkerFiles {
  /** catalog file name -> its text, as the catalog CLI wrote it */
  catalogs: Record<string, string>;
  page: Record<string, PageFile>;
}

let files: WorkerFiles = { catalogs: {}, page: {} };

/** Called by the entry module, before any request. */
export function useFiles(given: WorkerFiles): void {
  files = given;
}

/** A catalog file's text; undefined when the bundle holds no such file (own keys only). */
export function catalogText(file: string): string | undefined {
  return Object.hasOwn(files.catalogs, file) ? files.catalogs[file] : undefined;
}

/** A page file; undefined when the page was not built into the bundle. */
export function pageFile(file: string): PageFile | undefined {
  return Object.hasOwn(files.page, file) ? files.page[file] : undefined;
}
