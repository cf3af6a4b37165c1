// Arguments shared by several commands, defined once.

export const jsonArg = { type: "boolean", description: "Print one JSON object instead of text", default: false } as const;
export const catalogArg = {
  type: "positional",
  description: "Catalog file (catalogs/<name>@<version>.<hash12>.json)",
  required: true,
} as const;
export const configArg = {
  type: "string",
  alias: "c",
  description: "Config file",
  default: "toolsearch.config.json",
  valueHint: "path",
} as const;
export const htmlArg = {
  type: "string",
  description: "Also write the view as one self-contained HTML file (opens from disk: no server, no network)",
  valueHint: "out.html",
} as const;
export const outDirArg = { type: "string", description: "Directory of catalog files", default: "catalogs", valueHint: "dir" } as const;

/** stdout for results, stderr for progress: `--json` output stays machine-readable. */
export const out = (line = "") => process.stdout.write(`${line}\n`);
export const progress = (line: string) => process.stderr.write(`${line}\n`);

export function fmtMs(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}
