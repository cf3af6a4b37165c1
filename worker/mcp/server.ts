// The MCP gateway's answer for one 2025-era request on one session (protocol 2025-03-26 to
// 2025-11-25, initialize and Mcp-Session-Id): a v1 SDK `Server` whose tools/list and tools/call are
// the gateway's tools (tools.ts). With `inject` activation a call that loads tools sends
// notifications/tools/list_changed on its own response stream; with `proxy` (the default) tools/list
// never changes, so nothing is sent. A call with a progressToken gets the upstream server's
// notifications/progress on its response stream. Also: the session options an MCP client can set.

import { runProgram } from "../code/run.ts";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type RequestId,
  type ServerResult,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { ToolsearchError } from "../core/errors.ts";
import { parseCreateBody } from "../wire/requests.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import type { FrozenState } from "../session/client.ts";
import { SessionClient } from "../session/client.ts";
import type { CallContext } from "../session/execution.ts";
import type { CreateRequest } from "../session/create.ts";
import type { SessionState } from "../session/state.ts";
import { gatewayTools, InvalidParams, type GatewayPort } from "./tools.ts";
import { mcpCallKey } from "./cancel.ts";
import { askingRun } from "./approval-ask.ts";
import { streamAsk, type SendOnStream } from "./stream-ask.ts";
import { answerResource, resourceCapabilities } from "./resources.ts";

/** A gateway session as a request sees it: frozen fields, and activations where tools/list shows them (inject). */
export type McpSession = FrozenState & { mcp: NonNullable<SessionState["mcp"]>; activations: readonly string[] };

const OPTIONS = ["model", "profile", "deferral", "listing", "contextWindow", "activation", "code"] as const;

/**
 * Session options for an MCP client, which can set a URL and headers but nothing else: query
 * parameters (`?model=&profile=&deferral=&listing=&activation=&code=`) or `x-toolsearch-<option>` headers,
 * checked by the same rules as POST /v1/sessions. Without a model: POLICY's defaultModel. A gateway
 * exists for tool search, so deferral is on unless asked otherwise; activation is `proxy` (the
 * stable surface) unless `inject` is asked for.
 */
export async function mcpSessionRequest(
  c: RouteContext,
  mcp: { protocolVersion: string; client?: string; elicitation?: true },
): Promise<CreateRequest> {
  const given: Record<string, unknown> = {};
  for (const name of OPTIONS) {
    const value =
      c.url.searchParams.get(name) ?? c.request.headers.get(`x-toolsearch-${name.replace(/[A-Z]/g, (l) => `-${l.toLowerCase()}`)}`);
    if (value !== null) given[name] = name === "contextWindow" ? Number(value) : value;
  }
  const body = parseCreateBody({ model: settings(c.env).policy.defaultModel, deferral: "on", activation: "proxy", ...given });
  return { ...body, mcp };
}

/** `name/version` of an MCP clientInfo, for audit rows. */
export function clientName(info: unknown): string | undefined {
  if (!info || typeof info !== "object") return undefined;
  const { name, version } = info as { name?: unknown; version?: unknown };
  return typeof name === "string" ? (typeof version === "string" ? `${name}/${version}` : name).slice(0, 200) : undefined;
}

/** A session's calls and activations, through its object. */
export function sessionPort(c: RouteContext, id: string, cat: LoadedCatalog): GatewayPort {
  const client = SessionClient.of(c, id);
  return {
    run: (name, args, context) => client.run(name, args, context),
    activate: (n, q, a) => client.activate(n, q, a),
    resources: (op, context) => client.resources(op, context),
    runCode: (code, context, signal) => runProgram({ ...c, ...context }, client, cat, code, signal),
  };
}

/**
 * A request the client got wrong is InvalidParams. A session gone meanwhile (deleted through
 * another isolate, or expired: this isolate answered from its cache) is the protocol's -32001, so
 * the client initializes again.
 */
const invalid = (e: unknown) =>
  e instanceof InvalidParams
    ? new McpError(ErrorCode.InvalidParams, e.message)
    : e instanceof ToolsearchError && e.code === "not_found"
      ? new McpError(-32001, `Session not found: ${e.message} (initialize again)`)
      : e;

export function mcpServer(c: RouteContext, session: McpSession, cat: LoadedCatalog, send: SendOnStream): Server {
  const server = new Server(
    { name: "toolsearch", title: `toolsearch gateway (${cat.label})`, version: cat.catalog.version },
    {
      capabilities: { tools: { listChanged: session.activation === "inject" }, ...resourceCapabilities(session.mcp.servers) },
      instructions: session.mcp.instructions,
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const port = sessionPort(c, session.id, cat);
  const tools = gatewayTools(cat, session, port);
  // a client that answers elicitation is asked for a yes on the call's own stream (approval-ask.ts)
  const asking = (requestId: RequestId, signal: AbortSignal) =>
    gatewayTools(cat, session, { ...port, run: askingRun(port.run, streamAsk(c, session.id, send, requestId, signal)) });
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    try {
      return tools.list(req.params?.cursor);
    } catch (e) {
      throw invalid(e);
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args = {} } = req.params;
    const context: CallContext = {
      via: "mcp",
      key: mcpCallKey(extra.requestId),
      ...(session.mcp.client ? { client: session.mcp.client } : {}),
    };
    // the client asked for progress: the upstream server's goes out on this call's response stream
    const token = req.params._meta?.progressToken;
    if (token !== undefined)
      context.onProgress = (p) => void extra.sendNotification({ method: "notifications/progress", params: { ...p, progressToken: token } });
    try {
      const listChanged = () => extra.sendNotification({ method: "notifications/tools/list_changed" });
      const signal = AbortSignal.any([c.request.signal, extra.signal]);
      const callTools = session.mcp.elicitation ? asking(extra.requestId, signal) : tools;
      return await callTools.call(name, args, context, listChanged, signal);
    } catch (e) {
      throw invalid(e);
    }
  });
  if (session.mcp.servers.length) {
    // the servers' resources and prompts (resources.ts), under the session's rules and audit
    const context: CallContext = { via: "mcp", ...(session.mcp.client ? { client: session.mcp.client } : {}) };
    const rpcError = (code: number, message: string) => new McpError(code, message);
    const schemas = [
      ListResourcesRequestSchema,
      ListResourceTemplatesRequestSchema,
      ReadResourceRequestSchema,
      ListPromptsRequestSchema,
      GetPromptRequestSchema,
    ];
    for (const schema of schemas) {
      const method = schema.shape.method.value;
      // the servers' own result shapes, passed through
      server.setRequestHandler(schema, async (req) => (await answerResource(port, method, req.params, context, rpcError)) as ServerResult);
    }
  }
  return server;
}
