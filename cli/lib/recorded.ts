// Recorded tool lists: a saved tools/list result ({"tools":[...]}), a JSON array of MCP Tool
// objects, or JSONL with one Tool per line. A row may carry `server`, so one file can hold many
// servers (the eval sets are such files); rows without it belong to the config entry's name.
// A row's `_meta.server_title` / `_meta.server_description` (as the eval data carries them) is
// its server's title and description. This is how CI builds catalogs for servers it cannot reach.

import { readFile } from "node:fs/promises";
import { ToolsearchError } from "../../worker/core/errors.ts";
import type { ServerMeta, ServerSnapshot } from "./snapshot.ts";

function bad(source: string, message: string): never {
  throw new ToolsearchError("server_failed", `server "${source}": ${message}`);
}

function parseRows(text: string, source: string, path: string): unknown[] {
  const trimmed = text.trim();
  if (!trimmed) bad(source, `recorded file ${path} is empty`);
  try {
    const whole = JSON.parse(trimmed) as unknown;
    if (Array.isArray(whole)) return whole;
    if (whole && typeof whole === "object" && Array.isArray((whole as { tools?: unknown }).tools)) {
      return (whole as { tools: unknown[] }).tools;
    }
    // a single-line JSONL file is also valid JSON: one Tool object
    if (whole && typeof whole === "object" && "name" in whole) return [whole];
    bad(source, `recorded file ${path} is JSON but neither {"tools":[...]} nor an array of tools`);
  } catch (e) {
    if (e instanceof ToolsearchError) throw e;
  }
  return trimmed.split("\n").flatMap((line, i) => {
    if (!line.trim()) return [];
    try {
      return [JSON.parse(line) as unknown];
    } catch (e) {
      bad(source, `recorded file ${path} line ${i + 1} is not valid JSON (${(e as Error).message})`);
    }
  });
}

export async function readRecorded(source: string, path: string): Promise<ServerSnapshot[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (e) {
    bad(source, `cannot read recorded file ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const byServer = new Map<string, unknown[]>();
  const metaOf = new Map<string, ServerMeta>();
  for (const [i, row] of parseRows(text, source, path).entries()) {
    if (!row || typeof row !== "object" || Array.isArray(row)) bad(source, `recorded tool #${i + 1} in ${path} is not an object`);
    const { server, ...tool } = row as { server?: unknown };
    if (server !== undefined && (typeof server !== "string" || !server.trim())) {
      bad(source, `recorded tool #${i + 1} in ${path} has an invalid "server"`);
    }
    const name = (server as string | undefined) ?? source;
    const list = byServer.get(name) ?? [];
    list.push(tool);
    byServer.set(name, list);
    // the first row that says something of its server speaks for it
    const meta = metaOf.get(name) ?? {};
    const m = (tool as { _meta?: Record<string, unknown> })._meta;
    const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
    metaOf.set(name, { title: meta.title ?? text(m?.server_title), description: meta.description ?? text(m?.server_description) });
  }
  return [...byServer].map(([name, tools]) => ({ name, source, transport: "recorded", serverInfo: null, meta: metaOf.get(name)!, tools }));
}
