// What the MCP gateway answers, for one request on one session: an SDK `Server` whose tools/list
// is the session's view (core/mcp-tools.ts: core tools, toolSearch with the frozen listing,
// callTool, and with `inject` activation the activated tools) and whose tools/call runs toolSearch
// in the session (the same search path as /v1), callTool, or a catalog tool named directly, both
// through the one execution path (session/execution.ts: access, load-if-needed, argument check,
// kept-alive upstream session, audit). With `inject`, a call that loads tools sends
// notifications/tools/list_changed on its own response stream; with `proxy` (the default)
// tools/list never changes, so nothing is sent. A tool's own failure (bad arguments, the server
// failing or timing out) is an `isError` result the model can act on, and so is a callTool name
// the gateway does not offer (with the closest offered names); a tools/call naming such a tool
// directly is a JSON-RPC error, as clients expect for a tool they did not list. A call with a
// progressToken gets the upstream server's notifications/progress on its response stream.

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { CallToolResult as ToolResult } from "../core/call-result.ts";
import { ToolsearchError } from "../core/errors.ts";
import { GATEWAY_CALL_TOOL, resolveCallName } from "../core/mcp-gateway.ts";
import { pageOf, sessionMcpTools } from "../core/mcp-tools.ts";
import { CALL_TOOL_NAME, TOOL_SEARCH_NAME } from "../core/prompt.ts";
import { closestNames } from "../core/search.ts";
import { checkArguments } from "../core/tool-args.ts";
import { answerToolSearch } from "../core/tool-search.ts";
import { parseCreateBody } from "../wire/requests.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import type { SessionState } from "../session/state.ts";
import { sessionAccess } from "../core/access.ts";
import { isLoaded } from "../core/frozen.ts";
import { SessionClient } from "../session/client.ts";
import type { CallContext } from "../session/execution.ts";
import type { CreateRequest } from "../session/create.ts";
import { mcpCallKey } from "./cancel.ts";

export type McpSession = SessionState & { mcp: NonNullable<SessionState["mcp"]> };

const OPTIONS = ["model", "profile", "deferral", "listing", "contextWindow", "activation"] as const;

/**
 * Session options for an MCP client, which can set a URL and headers but nothing else: query
 * parameters (`?model=&profile=&deferral=&listing=&activation=`) or `x-toolsearch-<option>` headers,
 * checked by the same rules as POST /v1/sessions. Without a model: POLICY's defaultModel. A gateway
 * exists for tool search, so deferral is on unless asked otherwise; activation is `proxy` (the
 * stable surface) unless `inject` is asked for.
 */
export async function mcpSessionRequest(c: RouteContext, protocolVersion: string): Promise<CreateRequest> {
  const given: Record<string, unknown> = {};
  for (const name of OPTIONS) {
    const value =
      c.url.searchParams.get(name) ?? c.request.headers.get(`x-toolsearch-${name.replace(/[A-Z]/g, (l) => `-${l.toLowerCase()}`)}`);
    if (value !== null) given[name] = name === "contextWindow" ? Number(value) : value;
  }
  const body = parseCreateBody({ model: settings(c.env).policy.defaultModel, deferral: "on", activation: "proxy", ...given });
  return { ...body, mcp: { protocolVersion } };
}

function text(t: string, isError = false): CallToolResult {
  return { content: [{ type: "text", text: t }], ...(isError ? { isError: true } : {}) };
}

export function mcpServer(c: RouteContext, session: McpSession, cat: LoadedCatalog): Server {
  const server = new Server(
    { name: "toolsearch", title: `toolsearch gateway (${cat.label})`, version: cat.catalog.version },
    {
      capabilities: { tools: { listChanged: session.activation === "inject" } },
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

  const offered = (name: string) => cat.byName.has(name) && !access.denied.has(name) && (access.candidates?.has(name) ?? true);

  /** callTool: the target's failures, a name not offered included, are results the model can act on. */
  async function callByName(raw: Record<string, unknown>, context: CallContext): Promise<ToolResult | CallToolResult> {
    // some models send the arguments object as a JSON string
    let inner = raw.arguments;
    if (typeof inner === "string") {
      try {
        inner = JSON.parse(inner);
      } catch {
        // left as it is: the check below says what is wrong
      }
    }
    const check = checkArguments(GATEWAY_CALL_TOOL.inputSchema, { ...raw, ...(inner === undefined ? {} : { arguments: inner }) });
    if (!check.ok) return text(`Error: ${CALL_TOOL_NAME} ${check.errors.join("; ")}`, true);
    const name = resolveCallName(cat.byName, String(check.args.name));
    const outcome = await client.run(name, check.args.arguments ?? {}, context);
    if (outcome.ok) return outcome.result;
    if (!offered(name)) {
      const closest = closestNames(cat, name, 3, access.candidates).join(", ");
      return text(
        `Error: this gateway offers no tool named ${JSON.stringify(name.slice(0, 80))}. Closest offered names: ${closest}. ` +
          `Find tools with ${TOOL_SEARCH_NAME}, then pass the exact name its result gives.`,
        true,
      );
    }
    return text(`Error: ${outcome.message}`, true);
  }

  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { name, arguments: args = {} } = req.params;
    const inject = view.activation === "inject";
    const listChanged = () => (inject ? extra.sendNotification({ method: "notifications/tools/list_changed" }) : undefined);
    // the client asked for progress: the upstream server's goes out on this call's response stream
    const token = req.params._meta?.progressToken;
    const context: CallContext = { via: "mcp", key: mcpCallKey(extra.requestId) };
    if (token !== undefined)
      context.onProgress = (p) => void extra.sendNotification({ method: "notifications/progress", params: { ...p, progressToken: token } });
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
    if (name === CALL_TOOL_NAME && view.mode === "deferred") {
      const target = typeof args.name === "string" ? resolveCallName(cat.byName, args.name) : "";
      const grows = offered(target) && !isLoaded(view, target);
      const result = await callByName(args, context);
      // a callTool that loaded its target grew an inject session's tools/list
      if (grows) await listChanged();
      return result;
    }
    const wasLoaded = isLoaded(view, name);
    // the execution path checks the session's view (denials are audited), loads, checks, runs
    const outcome = await client.run(name, args, context);
    if (!outcome.ok && (outcome.code === "not_found" || outcome.code === "forbidden" || outcome.code === "not_executable")) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 80)} (${outcome.message})`);
    }
    // a deferred tool called directly was loaded by the call: tools/list grew
    if (!wasLoaded) await listChanged();
    return outcome.ok ? outcome.result : text(`Error: ${outcome.message}`, true);
  });
  return server;
}
