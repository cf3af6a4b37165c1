// toolsearch.config.json: the catalog's name, version and tokenizer, and `mcpServers` in the shape
// people already keep in .mcp.json / Claude Desktop / Cursor, and the search-text file. Validated strictly (unknown keys
// are errors, so a typo never silently drops a setting); `${VAR}` is expanded from the
// environment here and the expanded values live only in memory, never in the catalog.

import { readFile } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { CATALOG_NAME_RE, ENCODINGS, SEMVER_RE } from "../../worker/core/catalog.ts";
import { ToolsearchError } from "../../worker/core/errors.ts";

const common = {
  timeoutMs: z.number().int().positive().max(600_000).optional(),
  include: z.array(z.string().min(1)).optional(),
  exclude: z.array(z.string().min(1)).optional(),
  alwaysLoad: z.union([z.boolean(), z.array(z.string().min(1))]).optional(),
};
const stdio = z
  .object({
    type: z.literal("stdio").optional(),
    command: z.string().min(1, "command is empty"),
    args: z.array(z.string()).optional(),
    env: z.record(z.string()).optional(),
    cwd: z.string().optional(),
    ...common,
  })
  .strict();
const remote = z
  .object({
    type: z.enum(["http", "sse", "streamable-http"]),
    url: z.string().min(1, "url is empty"),
    headers: z.record(z.string()).optional(),
    ...common,
  })
  .strict();
const recorded = z.object({ type: z.literal("recorded").optional(), tools: z.string().min(1), ...common }).strict();

const configSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().regex(CATALOG_NAME_RE, "must be lowercase letters, digits, '.', '_' or '-' (1-64)"),
    version: z.string().regex(SEMVER_RE, "must be semver (MAJOR.MINOR.PATCH)"),
    encoding: z.enum(ENCODINGS).default("o200k_base"),
    /** the search-text file (docs/search-text.md), relative to the config */
    searchText: z.string().min(1).optional(),
    mcpServers: z.record(z.unknown()),
  })
  .strict();

export type ServerCommon = { timeoutMs: number; include?: string[]; exclude?: string[]; alwaysLoad?: boolean | string[] };
export type ServerSpec =
  | ({ kind: "stdio"; name: string; command: string; args: string[]; env: Record<string, string>; cwd?: string } & ServerCommon)
  | ({ kind: "http" | "sse"; name: string; url: string; headers: Record<string, string> } & ServerCommon)
  | ({ kind: "recorded"; name: string; path: string } & ServerCommon);

export interface BuildConfig {
  name: string;
  version: string;
  encoding: (typeof ENCODINGS)[number];
  servers: ServerSpec[];
  /** absolute path of the search-text file, when the config names one */
  searchText?: string;
  /** directory the config file lives in; relative paths resolve against it */
  baseDir: string;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

function bad(message: string): never {
  throw new ToolsearchError("invalid_config", message);
}

function issueText(where: string, error: z.ZodError): string {
  const first = error.issues[0]!;
  const path = first.path.join(".");
  if (first.code === "unrecognized_keys")
    return `${where}${path ? `.${path}` : ""}: unknown key ${first.keys.map((k) => `"${k}"`).join(", ")}`;
  return `${where}${path ? `.${path}` : ""}: ${first.message}`;
}

/** Replace `${VAR}` with its value from `env`; a variable that is not set is an error. */
export function expandVars(text: string, env: Record<string, string | undefined>, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined) bad(`${where}: environment variable ${name} is not set`);
    return value;
  });
}

function expandRecord(rec: Record<string, string> | undefined, env: NodeJS.ProcessEnv, where: string) {
  return Object.fromEntries(Object.entries(rec ?? {}).map(([k, v]) => [k, expandVars(v, env, `${where}.${k}`)]));
}

export function parseConfig(raw: unknown, baseDir: string, env: NodeJS.ProcessEnv = process.env): BuildConfig {
  const top = configSchema.safeParse(raw);
  if (!top.success) bad(issueText("config", top.error));
  const entries = Object.entries(top.data.mcpServers);
  if (entries.length === 0) bad("config.mcpServers: no servers");
  const servers = entries.map(([name, value]): ServerSpec => {
    const where = `mcpServers.${name}`;
    if (!name.trim()) bad(`${where}: server name is empty`);
    const v = value as Record<string, unknown>;
    if (!v || typeof v !== "object" || Array.isArray(v)) bad(`${where}: must be an object`);
    const schema = "tools" in v ? recorded : "command" in v ? stdio : "url" in v || "type" in v ? remote : null;
    if (!schema) bad(`${where}: needs "command" (stdio), "url" with "type" (http/sse) or "tools" (recorded file)`);
    const parsed = (schema as z.ZodTypeAny).safeParse(v);
    if (!parsed.success) bad(issueText(where, parsed.error));
    const s = parsed.data as Record<string, any>;
    const common: ServerCommon = {
      timeoutMs: s.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      include: s.include,
      exclude: s.exclude,
      alwaysLoad: s.alwaysLoad,
    };
    if (schema === recorded) return { kind: "recorded", name, path: resolve(baseDir, s.tools), ...common };
    if (schema === stdio) {
      const command = s.command.includes("/") && !isAbsolute(s.command) ? resolve(baseDir, s.command) : s.command;
      return {
        kind: "stdio",
        name,
        command: expandVars(command, env, `${where}.command`),
        args: (s.args ?? []).map((a: string, i: number) => expandVars(a, env, `${where}.args[${i}]`)),
        env: expandRecord(s.env, env, `${where}.env`),
        cwd: s.cwd ? resolve(baseDir, s.cwd) : undefined,
        ...common,
      };
    }
    const url = expandVars(s.url, env, `${where}.url`);
    try {
      new URL(url);
    } catch {
      bad(`${where}.url: not a valid URL`);
    }
    return { kind: s.type === "sse" ? "sse" : "http", name, url, headers: expandRecord(s.headers, env, `${where}.headers`), ...common };
  });
  const searchText = top.data.searchText === undefined ? undefined : resolve(baseDir, top.data.searchText);
  return { name: top.data.name, version: top.data.version, encoding: top.data.encoding, servers, searchText, baseDir };
}

export async function loadConfig(path: string, env: NodeJS.ProcessEnv = process.env): Promise<BuildConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    bad(`cannot read config ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    bad(`config ${path} is not valid JSON: ${(e as Error).message}`);
  }
  return parseConfig(raw, dirname(resolve(path)), env);
}
