// Snapshot live MCP servers: connect (stdio, Streamable HTTP with SSE fallback, or legacy SSE),
// page through tools/list with nextCursor, and hand back the raw tool objects. Each server has its
// own deadline; a server that exits, hangs or errors becomes a failure naming it, never a partial
// catalog. Servers are contacted concurrently with a bound.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { z } from "zod";
import type { TransportKind } from "../../worker/core/catalog.ts";
import type { ServerSpec } from "./config.ts";

export interface ServerSnapshot {
  /** server name as tools will carry it (the config key, or a recorded row's `server`) */
  name: string;
  /** config entry it came from */
  source: string;
  transport: TransportKind;
  serverInfo: { name: string; version: string } | null;
  /** what the server says of itself (initialize's serverInfo.title/description and instructions) */
  meta: ServerMeta;
  tools: unknown[];
}

export interface ServerMeta {
  title?: string;
  description?: string;
  instructions?: string;
}

const MAX_PAGES = 1000;
const ListPage = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).passthrough();
const CLIENT_INFO = { name: "toolsearch-catalog", version: "1" };

class Deadline extends Error {}

async function listAllTools(client: Client, timeoutMs: number): Promise<unknown[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    // a permissive schema: tools are validated by the build so errors can name the tool
    const result = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, ListPage, { timeout: timeoutMs });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) return tools;
    if (seen.has(cursor)) throw new Error(`tools/list repeated cursor ${JSON.stringify(cursor)}`);
    seen.add(cursor);
  }
  throw new Error(`tools/list did not end after ${MAX_PAGES} pages`);
}

async function connectAndList(transport: Transport, timeoutMs: number) {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const tools = await listAllTools(client, timeoutMs);
    const info = client.getServerVersion();
    const text = (v: unknown) => (typeof v === "string" && v.trim() ? v : undefined);
    const meta: ServerMeta = {
      title: text(info?.title),
      description: text(info?.description),
      instructions: text(client.getInstructions()),
    };
    return { tools, serverInfo: info ? { name: String(info.name), version: String(info.version) } : null, meta };
  } finally {
    await client.close().catch(() => {});
  }
}

function withDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout>;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      onTimeout();
      reject(new Deadline(`no answer within ${ms} ms (timeoutMs)`));
    }, ms);
  });
  return Promise.race([work(controller.signal), deadline]).finally(() => clearTimeout(timer));
}

async function snapshotStdio(spec: Extract<ServerSpec, { kind: "stdio" }>) {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...defaultEnv(), ...spec.env },
    cwd: spec.cwd,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  try {
    return await withDeadline(
      () => connectAndList(transport, spec.timeoutMs),
      spec.timeoutMs,
      () => void transport.close(),
    );
  } catch (e) {
    const last = stderr.trim().split("\n").filter(Boolean).at(-1);
    throw new Error(`${(e as Error).message}${last ? ` (stderr: ${last.slice(0, 300)})` : ""}`);
  }
}

/** The child gets PATH/HOME and the like, not the whole environment (as the SDK does by default). */
function defaultEnv(): Record<string, string> {
  const keep = ["PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "TMPDIR", "LANG", "SYSTEMROOT"];
  return Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]!]));
}

async function snapshotRemote(spec: Extract<ServerSpec, { kind: "http" | "sse" }>) {
  const requestInit = { headers: spec.headers };
  const url = new URL(spec.url);
  const started = Date.now();
  const sse = async () => {
    const left = Math.max(1, spec.timeoutMs - (Date.now() - started));
    const t = new SSEClientTransport(url, { requestInit });
    return {
      ...(await withDeadline(
        () => connectAndList(t, left),
        left,
        () => void t.close(),
      )),
      transport: "sse" as const,
    };
  };
  if (spec.kind === "sse") return sse();
  const http = new StreamableHTTPClientTransport(url, { requestInit });
  try {
    return {
      ...(await withDeadline(
        () => connectAndList(http, spec.timeoutMs),
        spec.timeoutMs,
        () => void http.close(),
      )),
      transport: "http" as const,
    };
  } catch (e) {
    if (e instanceof Deadline) throw e;
    // the SDK's documented pattern: a server that does not speak Streamable HTTP gets legacy SSE
    try {
      return await sse();
    } catch (e2) {
      throw new Error(`Streamable HTTP failed (${(e as Error).message}); SSE fallback failed (${(e2 as Error).message})`);
    }
  }
}

export async function snapshotLive(spec: Exclude<ServerSpec, { kind: "recorded" }>): Promise<ServerSnapshot> {
  if (spec.kind === "stdio") {
    const r = await snapshotStdio(spec);
    return { name: spec.name, source: spec.name, transport: "stdio", ...r };
  }
  const r = await snapshotRemote(spec);
  return { name: spec.name, source: spec.name, transport: r.transport, serverInfo: r.serverInfo, meta: r.meta, tools: r.tools };
}

/** Run `fn` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapBounded<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
