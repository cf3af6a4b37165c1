// What the MCP gateway answers, for one request on one session: an SDK `Server` whose tools/list
// is the session's view (core tools, toolSearch with the frozen listing, activated tools) and
// whose tools/call runs toolSearch in the session (the same search path as /v1) or a catalog
// tool through the one execution path (session/execution.ts: access, load-if-needed, argument
// check, kept-alive upstream session, audit). A call that loads tools (toolSearch, or a deferred
// tool called directly) sends notifications/tools/list_changed on that call's own response
// stream, so clients need no GET stream to learn that tools/list grew. A tool's own failure
// (bad arguments, the server failing or timing out) is an `isError` result the model can act on;
// naming a tool the session does not offer is a JSON-RPC error.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { ToolsearchError } from "../core/errors.ts";
import { pageOf, sessionMcpTools } from "../core/mcp-tools.ts";
import { TOOL_SEARCH_NAME } from "../core/prompt.ts";
import { answerToolSearch } from "../core/tool-search.ts";
import { parseCreateBody } from "../wire/requests.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import type { SessionState } from "../session/state.ts";
import { sessionAccess } from "../core/access.ts";
import { isLoaded } from "../core/frozen.ts";
import { SessionClient } from "../session/client.ts";
import type { CreateRequest } from "../session/create.ts";

export type McpSession = SessionState & { mcp: NonNullable<SessionState["mcp"]> };

const OPTIONS = ["model", "profile", "deferral", "listing", "contextWindow"] as const;

/**
 * Session options for an MCP client, which can set a URL and headers but nothing else: query
 * parameters (`?model=&profile=&deferral=&listing=`) or `x-toolsearch-<option>` headers, checked by the
 * same rules as POST /v1/sessions. Without a model: POLICY's defaultModel.
 */
export async function mcpSessionRequest(c: RouteContext, protocolVersion: string): Promise<CreateRequest> {
  const given: Record<string, unknown> = {};
  for (const name of OPTIONS) {
    const value =
      c.url.searchParams.get(name) ?? c.request.headers.get(`x-toolsearch-${name.replace(/[A-Z]/g, (l) => `-${l.toLowerCase()}`)}`);
    if (value !== null) given[name] = name === "contextWindow" ? Number(value) : value;
  }
  const body = parseCreateBody({ model: settings(c.env).policy.defaultModel, ...given });
  return { ...body, activation: "inject", mcp: { protocolVersion } };
}

function text(t: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: t }], ...(isError ? { isError: true } : {}) };
}

export function mcpServer(c: RouteContext, session: McpSession, cat: LoadedCatalog): Server {
  const server = new Server(
    { name: "toolsearch", title: `toolsearch gateway (${cat.label})`, version: cat.catalog.version },
    {
      capabilities: { tools: { listChanged: true } },
      instructions: session.mcp.instructions,
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const client = SessionClient.of(c, session.id);
  const access = sessionAccess(cat.tools, session);
  // activations are re-read from the session object at the start of each request
  const view = { ...session, activations: [...session.activations] };

  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    try {
      const { page, nextCursor } = pageOf(sessionMcpTools(cat.byName, view), req.params?.cursor);
      return nextCursor ? { tools: page, nextCursor } : { tools: page };
    } catch (e) {
      if (e instanceof ToolsearchError && e.code === "bad_request") throw new McpError(ErrorCode.InvalidParams, e.message);
      throw e;
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args = {} } = req.params;
    const listChanged = () => extra.sendNotification({ method: "notifications/tools/list_changed" });
    if (name === TOOL_SEARCH_NAME && view.mode === "deferred") {
      const answer = await answerToolSearch(
        cat,
        view,
        args.query,
        args.limit,
        (names, q, audit) => client.activate(names, q, { ...audit, via: "mcp" }),
        access,
        "mcp",
      );
      if (answer.activations) view.activations = answer.activations;
      if (answer.loaded.length) await listChanged();
      return text(answer.result, answer.isError);
    }
    const wasLoaded = isLoaded(view, name);
    // the execution path checks the session's view (denials are audited), loads, checks, runs
    const outcome = await client.run(name, args, { via: "mcp" });
    if (!outcome.ok && (outcome.code === "not_found" || outcome.code === "forbidden" || outcome.code === "not_executable")) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 80)} (${outcome.message})`);
    }
    // a deferred tool called directly was loaded by the call: tools/list grew
    if (!wasLoaded) await listChanged();
    return outcome.ok ? outcome.result : text(`Error: ${outcome.message}`, true);
  });
  return server;
}
