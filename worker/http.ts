// HTTP helpers for the routes: JSON responses, JSON body reading with limits, and the route type.
// Every rule here throws a ToolsearchError; worker/index.ts is the one place that renders it.

import { ToolsearchError } from "./core/errors.ts";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./core/json-depth.ts";
import { memberText, scanJson } from "./core/json-member.ts";
import { parseKnown, type KnownMember } from "./core/known-member.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

export function json(body: unknown, status = 200, headers: HeadersInit = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/**
 * The body's bytes, counted as they arrive: a declared length over `maxBytes` is refused unread,
 * and a body without one (chunked) is cancelled as soon as the count passes it, so at most the
 * limit and one chunk are ever held (a 400 MiB body once raised memory by 840 MiB before its 413).
 */
export async function readBytes(request: Pick<Request, "headers" | "body">, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new ToolsearchError("payload_too_large", `body is ${declared} bytes; the limit is ${maxBytes}`);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ToolsearchError("payload_too_large", `body is over ${maxBytes} bytes; the limit is ${maxBytes}`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) out.set(c, (at += c.byteLength) - c.byteLength);
  return out;
}

/**
 * `res` with its body counted as it is read: past `maxBytes` the stream errors with `error()`, so
 * an upstream that answers without end costs at most that much (MCP results, model streams).
 */
export function boundedResponse(res: Response, maxBytes: number, error: () => Error): Response {
  if (!res.body || maxBytes === Infinity) return res;
  let seen = 0;
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        seen += chunk.byteLength;
        if (seen <= maxBytes) out.enqueue(chunk);
        else out.error(error());
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A JSON nested deeper than MAX_JSON_DEPTH: a 400 saying so (core/json-depth.ts: why). */
export function tooDeep(value: unknown): string | null {
  return nestsDeeperThan(value) ? `body nests deeper than ${MAX_JSON_DEPTH} levels` : null;
}

const utf8 = new TextDecoder();

/**
 * A request body's text, in one read: with a declared length (within `maxBytes`, refused unread
 * past it) the platform reads exactly that many bytes, and `text()` decodes them natively in one
 * pass; a body without one (chunked) goes through readBytes, counted and cancelled past the limit.
 * Only for requests the Worker receives: a fetched answer's length can name compressed bytes.
 */
export async function readText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get("content-length");
  if (declared === null || !request.body) return utf8.decode(await readBytes(request, maxBytes));
  if (Number(declared) > maxBytes) throw new ToolsearchError("payload_too_large", `body is ${declared} bytes; the limit is ${maxBytes}`);
  return request.text();
}

/** Read a JSON object body: content type, size limit (in bytes, counted while reading), syntax and depth checked before any work. */
export async function readJson(request: Request, maxBytes = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  return (await readJsonText(request, maxBytes)).value;
}

/**
 * readJson, and the raw text of a top-level member (core/json-member.ts): one scan of the text
 * gives both the depth check and where the members lie, so the parsed value is never walked.
 * With `known`, a member whose text parsed before is neither parsed nor scanned again
 * (core/known-member.ts); any doubt parses the whole text as before, so errors read the same.
 */
export async function readJsonText(
  request: Request,
  maxBytes: number,
  known?: KnownMember,
): Promise<{ value: Record<string, unknown>; member: (key: string) => string | undefined }> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new ToolsearchError("unsupported_media_type", `content-type must be application/json, got "${type || "none"}"`);
  }
  const text = await readText(request, maxBytes);
  const got = known ? parseKnown(text, known) : {};
  const value = got.value ?? parseObject(text);
  const scan = got.scan ?? scanJson(text);
  if (scan.depth > MAX_JSON_DEPTH) throw new ToolsearchError("bad_request", `body nests deeper than ${MAX_JSON_DEPTH} levels`);
  return { value, member: (key) => memberText(text, key, scan) };
}

function parseObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ToolsearchError("bad_request", `body is not valid JSON (${(e as Error).message})`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw new ToolsearchError("bad_request", "body must be a JSON object");
  return value as Record<string, unknown>;
}

export interface RouteContext {
  request: Request;
  env: Env;
  ctx: ExecutionContext;
  params: Record<string, string>;
  url: URL;
  /** the API key's tenant on /v1/* and /mcp ("" on open routes) */
  tenant: string;
  /** the key's user, or the one an assertsUser key named (x-toolsearch-user); "" when none (worker/auth.ts) */
  user: string;
  /** the API key's id (auth.ts Caller; "" on open routes): quotas count per key */
  key: string;
  /** the catalog label for the x-catalog header, when a route knows a more specific one */
  setCatalogLabel(label: string): void;
}

/** A path parameter the route's pattern captures (`:id` in `/v1/sessions/:id`). */
export function param(c: Pick<RouteContext, "params">, key: string): string {
  const value = c.params[key];
  // only a route whose pattern lacks `:key` gets here: a bug in the route table, not in the request
  if (value === undefined) throw new ToolsearchError("internal", `route has no parameter :${key}`);
  return value;
}

export type Handler = (c: RouteContext) => Promise<Response>;
/**
 * `onError` renders this route's errors in its protocol's shape (JSON-RPC on /mcp); default `{ error }`.
 * A 401 keeps the Worker's own shape unless `rendersAuth` (the Messages API: Anthropic's authentication_error).
 */
export type Route = {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
  onError?: (err: ToolsearchError) => Response;
  rendersAuth?: boolean;
};

/** `/v1/sessions/:id/prompt` -> a route matching that path with `id` captured. */
export function route(method: string, path: string, handler: Handler, onError?: Route["onError"], rendersAuth = false): Route {
  const keys: string[] = [];
  const pattern = new RegExp(`^${path.replace(/:([a-zA-Z]+)/g, (_, k: string) => (keys.push(k), "([^/]+)"))}$`);
  return { method, pattern, keys, handler, onError, rendersAuth };
}
