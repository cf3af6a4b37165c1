// MCP 2026-07-28 on /mcp, next to the 2025-era protocol: every request stands alone, carrying its
// protocol version, client capabilities and client info in `_meta`. The v2 SDK's
// `createMcpHandler` (@modelcontextprotocol/server, strict modern: `legacy: "reject"`, since
// 2025-era requests keep the gateway's own sessions, routes/mcp.ts) does the wire format:
// server/discover, the Mcp-Method / Mcp-Name / MCP-Protocol-Version header checks (HeaderMismatch
// -32020), UnsupportedProtocolVersion -32022, a missing `_meta` (-32602), `resultType` on results,
// `ttlMs` / `cacheScope` on tools/list, subscriptions/listen, and no `ping` (-32601). A fresh v2
// `Server` per request answers with the stable session's tools (stable.ts, tools.ts). It runs in
// workerd with the cf-worker JSON Schema validator (no code generation).

import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  createMcpHandler,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type ListToolsResult,
} from "@modelcontextprotocol/server";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { RouteContext } from "../http.ts";
import { callKey, cancelOnAbort } from "../session/cancel.ts";
import { SessionClient } from "../session/client.ts";
import type { CallContext } from "../session/execution.ts";
import { clientName } from "./server.ts";
import { answerResource, RESOURCE_METHODS, resourceCapabilities, type ResourceMethod } from "./resources.ts";
import { MODERN_VERSION, stablePort, stableSession } from "./stable.ts";
import { gatewayTools, InvalidParams } from "./tools.ts";
import { askingRun } from "./approval-ask.ts";
import { InputNeeded, inputRequiredResult, retryAsk } from "./retry-ask.ts";

/**
 * How long a client may keep tools/list: it changes only with a deployment (catalog, POLICY,
 * SERVERS). `private`: it is the tenant's view, so a shared cache must not serve it to another.
 */
export const TOOLS_LIST_TTL_MS = 3_600_000;

const invalid = (e: unknown) => (e instanceof InvalidParams ? new ProtocolError(ProtocolErrorCode.InvalidParams, e.message) : e);

/** Answer one 2026-07-28 request (`body` already read and parsed). */
export async function serveModern(c: RouteContext, body: unknown): Promise<Response> {
  const { session, init, cat } = await stableSession(c, body);
  const port = stablePort(c, init, cat);
  // a request that reaches the session object creates it before the SDK answers: a refusal by the
  // sessions quota is then a 429 with retry-after (-32000, routes/mcp.ts), not an error inside a 200
  if (reachesObject(body, session.mcp.servers.length > 0)) await port.ready();
  const factory = () => {
    const server = new Server(
      { name: "toolsearch", title: `toolsearch gateway (${cat.label})`, version: cat.catalog.version },
      {
        capabilities: { tools: { listChanged: false }, ...resourceCapabilities(session.mcp.servers) },
        instructions: session.mcp.instructions,
        jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
        cacheHints: { "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "private" } },
      },
    );
    const tools = gatewayTools(cat, session, port);
    server.setRequestHandler("tools/list", async (req) => {
      try {
        // MCP's own shapes; core types them more loosely (an inputSchema is any JSON object there)
        return tools.list(req.params?.cursor) as ListToolsResult;
      } catch (e) {
        throw invalid(e);
      }
    });
    server.setRequestHandler("tools/call", async (req, ctx) => {
      const { name, arguments: args = {} } = req.params;
      const envelope: Record<string, unknown> = { ...ctx.mcpReq.envelope };
      const client = clientName(envelope[CLIENT_INFO_META_KEY]);
      // no notifications/cancelled across requests on this version: the client closing the
      // connection (request.signal) or the response stream (the handler's signal) cancels this call
      // by its own key (session/cancel.ts)
      const key = callKey("mcp");
      const context: CallContext = { via: "mcp", key, ...(client ? { client } : {}) };
      const stopWatching = cancelOnAbort(c, SessionClient.of(c, init.id), key, AbortSignal.any([c.request.signal, ctx.mcpReq.signal]));
      // the client asked for progress: the upstream server's goes out on this call's response stream
      const token = ctx.mcpReq._meta?.progressToken;
      if (token !== undefined)
        context.onProgress = (p) => void ctx.mcpReq.notify({ method: "notifications/progress", params: { ...p, progressToken: token } });
      // a client that answers elicitation is asked for a yes by the spec's multi round-trip (retry-ask.ts)
      const caps = envelope[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: Record<string, unknown> } | undefined;
      const elicits = caps?.elicitation && (Object.keys(caps.elicitation).length === 0 || caps.elicitation.form);
      const retry = { state: ctx.mcpReq.requestState<string>(), responses: ctx.mcpReq.inputResponses, client };
      const callTools = elicits ? gatewayTools(cat, session, { ...port, run: askingRun(port.run, retryAsk(c, init.id, retry)) }) : tools;
      try {
        return (await callTools.call(
          name,
          args,
          context,
          async () => {},
          AbortSignal.any([c.request.signal, ctx.mcpReq.signal]),
        )) as CallToolResult;
      } catch (e) {
        if (e instanceof InputNeeded) return (await inputRequiredResult(c, init.id, e.approval)) as never;
        throw invalid(e);
      } finally {
        stopWatching();
      }
    });
    // the servers' resources and prompts (resources.ts): each answer is the server's own result for
    // its method, passed through (the SDK types a handler's result per method, this loop serves five)
    if (session.mcp.servers.length)
      for (const method of Object.keys(RESOURCE_METHODS) as ResourceMethod[]) {
        server.setRequestHandler(method, async (req, ctx) => {
          const client = clientName(({ ...ctx.mcpReq.envelope } as Record<string, unknown>)[CLIENT_INFO_META_KEY]);
          const context: CallContext = { via: "mcp", ...(client ? { client } : {}) };
          return (await answerResource(port, method, req.params, context, (code, m) => new ProtocolError(code, m))) as never;
        });
      }
    return server;
  };
  // per request: nothing is kept between requests (a listen stream has nothing to deliver: tools/list never changes)
  const handler = createMcpHandler(factory, { legacy: "reject", keepAliveMs: 0 });
  return withLegacyVersions(await handler.fetch(c.request, { parsedBody: body }));
}

/** tools/call and (with servers to serve them) resources and prompts use the session object; tools/list and server/discover do not. */
function reachesObject(body: unknown, resources: boolean): boolean {
  const method = (body as { method?: unknown } | null)?.method;
  return method === "tools/call" || (resources && typeof method === "string" && Object.hasOwn(RESOURCE_METHODS, method));
}

/**
 * -32022 names every version this URL serves: the SDK's strict handler knows only the modern one,
 * but a client may fall back to initialize at any of the 2025-era versions.
 */
async function withLegacyVersions(res: Response): Promise<Response> {
  if (res.status !== 400 || !res.headers.get("content-type")?.startsWith("application/json")) return res;
  const text = await res.text();
  const body = JSON.parse(text) as { error?: { code?: number; data?: { supported?: string[] } } };
  if (body.error?.code === ProtocolErrorCode.UnsupportedProtocolVersion && Array.isArray(body.error.data?.supported)) {
    body.error.data.supported = [MODERN_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== MODERN_VERSION)];
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    return new Response(JSON.stringify(body), { status: 400, headers });
  }
  return new Response(text, { status: res.status, headers: res.headers });
}
