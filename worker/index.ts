// Worker entry: routing and the one error handler. Every request first crosses the perimeter
// (worker/perimeter.ts: its Host, and on /v1 and /mcp its Origin: DNS rebinding). /v1/* and /mcp
// need an API key (worker/auth.ts), checked next so an unauthenticated caller learns nothing, then
// the key's request quota (session/quota-client.ts: a 429 with retry-after); path parameters are
// decoded after it, inside the handler (malformed percent-encoding is a 400, never a bare 500). Every other response
// carries x-catalog; every error is `{ error: { code, message } }` with the status of its
// ToolsearchError (a route may render it in its protocol's shape: JSON-RPC on /mcp; a 401 only if
// the route says it renders those too, as the Messages API does; every 401 keeps WWW-Authenticate); a Durable
// Object that failed or was reset is a 503 to retry; anything else is a 500 whose details stay in
// the logs. A bad setting (settings.ts) is a 503 config_invalid on every route, /healthz included,
// naming the setting to a caller with a valid key. The daily cron prunes D1's audit rows past retention (retention.ts).

import { authenticate } from "./auth.ts";
import { RateLimited, ToolsearchError } from "./core/errors.ts";
import { labelFromFile, loadCatalog } from "./catalogs.ts";
import { checkHost, checkOrigin } from "./perimeter.ts";
import { logConfigReport, settings } from "./settings.ts";
import { admit } from "./session/quota-client.ts";
import { pruneAuditEvents } from "./retention.ts";
import { json, type Route, type RouteContext } from "./http.ts";
import { auditRoutes } from "./routes/audit.ts";
import { callRoutes } from "./routes/calls.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { chatRoutes } from "./routes/chat.ts";
import { codeRoutes } from "./routes/code.ts";
import { approvalRoutes } from "./routes/approvals.ts";
import { connectRoutes } from "./routes/connect.ts";
import { connectionRoutes } from "./routes/connections.ts";
import { healthRoutes } from "./routes/health.ts";
import { pageRoutes } from "./routes/page.ts";
import { responsesRoutes } from "./routes/responses.ts";
import { mcpRoutes } from "./routes/mcp.ts";
import { messagesRoutes } from "./routes/messages.ts";
import { sessionRoutes } from "./routes/sessions.ts";

export { SessionDO } from "./session/session-do.ts";

const routes: Route[] = [
  ...pageRoutes,
  ...healthRoutes,
  ...catalogRoutes,
  ...sessionRoutes,
  ...callRoutes,
  ...codeRoutes,
  ...auditRoutes,
  ...chatRoutes,
  ...responsesRoutes,
  ...messagesRoutes,
  ...mcpRoutes,
  ...connectionRoutes,
  ...connectRoutes,
  ...approvalRoutes,
];

/** Paths behind API keys: the REST and chat API, and the MCP gateway. */
const isProtected = (path: string) => path === "/v1" || path.startsWith("/v1/") || path === "/mcp";

function match(method: string, path: string): { route: Route; params: Record<string, string> } | "wrong-method" | null {
  let pathMatched = false;
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    if (r.method !== method && !(method === "HEAD" && r.method === "GET")) continue;
    // raw: decoding can throw, so it happens in the handler, after the key check (decodeParams)
    return { route: r, params: Object.fromEntries(r.keys.map((k, i) => [k, m[i + 1]!])) };
  }
  return pathMatched ? "wrong-method" : null;
}

function decodeParams(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      throw new ToolsearchError("bad_request", `${k}: malformed percent-encoding in the path`);
    }
  }
  return out;
}

function toError(e: unknown, where: string): ToolsearchError {
  if (e instanceof ToolsearchError) {
    // a 500 is the deployment's fault (a setting, a secret): the log says which, not only the status
    if (e.status === 500 || e.code === "config_invalid") console.error(`${where}: ${e.code}: ${e.message}`);
    return e;
  }
  console.error("unhandled error", e);
  // errors thrown across a Durable Object call carry these flags (Workers runtime)
  const flags = (e ?? {}) as { remote?: boolean; retryable?: boolean; overloaded?: boolean; durableObjectReset?: boolean };
  if (flags.durableObjectReset || flags.overloaded || flags.retryable || flags.remote) {
    return new ToolsearchError("unavailable", "session storage failed during the request; nothing was half-written, retry");
  }
  return new ToolsearchError("internal", "internal error");
}

/** A bad setting's message names the deployment's tenants and servers: only a caller with a valid key reads it. */
async function forCaller(err: ToolsearchError, request: Request, env: Env): Promise<ToolsearchError> {
  if (err.code !== "config_invalid") return err;
  const keyed = await authenticate(request, env.API_KEYS).then(
    () => true,
    () => false,
  );
  return keyed
    ? err
    : new ToolsearchError(
        "config_invalid",
        "the deployment's settings are invalid: no request is served until they are fixed (the Worker's log, or this request with an API key, names the setting)",
      );
}

/**
 * `response` with `extra` headers set. A response the Worker built has mutable headers and is
 * answered as it is; one whose headers are immutable (a fetched one passed through) is copied.
 */
function withHeaders(response: Response, extra: Array<[string, string]>): Response {
  try {
    for (const [k, v] of extra) response.headers.set(k, v);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    for (const [k, v] of extra) headers.set(k, v);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

export default {
  async fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    let label: string | undefined;
    let response: Response;
    let principal = { tenant: "", user: "", key: "" };
    let unauthorized = false;
    let retryAfter: number | undefined;
    const found = match(request.method, url.pathname);
    try {
      const config = settings(env);
      checkHost(url, config);
      if (isProtected(url.pathname)) {
        checkOrigin(request, url, config);
        principal = await authenticate(request, env.API_KEYS);
        // a key's requests are counted before any work, so a refused flood costs one counter call each
        await admit({ env, ...principal }, "requests");
      }
      const pinned = config.catalogFile;
      // the pinned catalog must load before any route answers: a bad deploy is a 503 everywhere
      const cat = await loadCatalog(pinned).catch((e) => {
        label = labelFromFile(pinned);
        throw e;
      });
      label = cat.label;
      logConfigReport(config, cat.catalog);
      if (found === null) throw new ToolsearchError("not_found", `no route ${request.method} ${url.pathname.slice(0, 200)}`);
      if (found === "wrong-method")
        throw new ToolsearchError("method_not_allowed", `${request.method} is not allowed on ${url.pathname.slice(0, 200)}`);
      const c: RouteContext = {
        request,
        env,
        ctx,
        url,
        ...principal,
        params: decodeParams(found.params),
        setCatalogLabel: (l) => (label = l),
      };
      response = await found.route.handler(c);
    } catch (e) {
      const err = await forCaller(toError(e, `${request.method} ${url.pathname.slice(0, 200)}`), request, env);
      const route = found && found !== "wrong-method" ? found.route : undefined;
      const render = err.status !== 401 || route?.rendersAuth ? route?.onError : undefined;
      response = render?.(err) ?? json(err.toJSON(), err.status);
      if (err.status === 401) unauthorized = true;
      if (err instanceof RateLimited) retryAfter = err.retryAfter;
    }
    const extra: Array<[string, string]> = [];
    if (unauthorized) extra.push(["www-authenticate", 'Bearer realm="toolsearch"']);
    if (label) extra.push(["x-catalog", label]);
    if (retryAfter) extra.push(["retry-after", String(retryAfter)]);
    return withHeaders(response, extra);
  },

  /** The daily cron (wrangler.toml [triggers]): audit rows in D1 past their tenant's retention go (retention.ts). */
  async scheduled(_controller: ScheduledController, env: Env): Promise<void> {
    const deleted = await pruneAuditEvents(env.AUDIT, settings(env).quotas);
    console.log(`retention: ${deleted} audit rows past QUOTAS.auditRetentionDays deleted`);
  },
} satisfies ExportedHandler<Env>;
