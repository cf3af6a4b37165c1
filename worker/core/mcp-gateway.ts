// The MCP gateway's own tools, pure: toolSearch and callTool as an MCP client lists them, and the
// text a toolSearch result adds so a model can run what it loaded through callTool. Real clients
// add their own prefix to a server's tool names (Claude Code `mcp__<server>__`, opencode
// `<server>_`, Codex a namespace) and many never re-list on list_changed, so the gateway's stable
// surface is these two tools, and the texts name tools exactly as callTool takes them.

import type { CatalogTool } from "./catalog.ts";
import { CALL_TOOL_NAME, TOOL_SEARCH_NAME, TOOL_SEARCH_TOOL, type ToolDefinition } from "./prompt.ts";

/** How loaded tools reach the model: `proxy` (the stable surface, tools/list never changes) or `inject` (they join tools/list). */
export type GatewayActivation = "inject" | "proxy";

/** Claude Code keeps a tool with this inline even when its own tool search defers MCP tools. */
export const ALWAYS_LOAD_META: Readonly<Record<string, unknown>> = Object.freeze({ "anthropic/alwaysLoad": true });

const SEARCH_HOW =
  "Find and load tools of this gateway so you can run them. `select:a,b` loads exact names; other queries are keywords " +
  "that load the best matches (`+word` requires a word; `mcp__<server> words` searches one server); `mcp__<server>` alone " +
  "lists a server's tools a page at a time (`page:2`), loading nothing.";

/**
 * toolSearch as the gateway lists it: how to search, then the frozen deferred listing, whose header
 * says how a loaded tool runs on this surface (listing.ts viaCallTool, viaGatewayList); without
 * one, this description says it.
 */
export function gatewayToolSearch(section: string, activation: GatewayActivation): ToolDefinition {
  if (section) return { ...TOOL_SEARCH_TOOL, description: `${SEARCH_HOW}\n\n${section}` };
  const then =
    activation === "proxy"
      ? ` The result gives each loaded tool's exact name and input schema: run it with ${CALL_TOOL_NAME}.`
      : ` Loaded tools join your tools list; ${CALL_TOOL_NAME} runs them too, by the exact name the result gives.`;
  return { ...TOOL_SEARCH_TOOL, description: `${SEARCH_HOW}${then}` };
}

/** callTool: runs any tool the gateway offers, by the exact name a toolSearch result gives. */
export const GATEWAY_CALL_TOOL: ToolDefinition = {
  name: CALL_TOOL_NAME,
  description:
    `Run a tool of this gateway by name. \`name\` is the tool's exact name as a ${TOOL_SEARCH_NAME} result writes it ` +
    `(for example mcp__github__create_issue), without any prefix your client adds; \`arguments\` must match the input ` +
    `schema that result shows. Load tools with ${TOOL_SEARCH_NAME} first.`,
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: `exact tool name, as written in a ${TOOL_SEARCH_NAME} result` },
      arguments: { type: "object", description: "the tool's arguments, matching its input schema" },
    },
    required: ["name"],
    additionalProperties: false,
  },
};

/**
 * What a toolSearch result adds on the gateway: how to run the tools it names through callTool,
 * whatever the client calls callTool, and each one's exact name and input schema as compact JSON.
 */
export function gatewayCallGuide(byName: ReadonlyMap<string, CatalogTool>, names: readonly string[]): string {
  const known = names.filter((n) => byName.has(n));
  if (!known.length) return "";
  const lines = known.map((n) => JSON.stringify({ name: n, inputSchema: byName.get(n)!.inputSchema }));
  const example = JSON.stringify({ name: known[0], arguments: {} }).replace("{}", "{...}");
  return (
    `\n\nRun ${known.length > 1 ? "these tools" : "it"} with this server's ${CALL_TOOL_NAME} tool (your client may show it with a prefix, ` +
    `such as mcp__toolsearch__${CALL_TOOL_NAME} or toolsearch_${CALL_TOOL_NAME}), passing the exact name below, unprefixed, ` +
    `and arguments that match its input schema: ${CALL_TOOL_NAME}(${example}).\n${lines.join("\n")}`
  );
}

/**
 * The catalog name a callTool `name` means: itself, or, when a model copied a client's prefixed
 * form (`mcp__toolsearch__mcp__github__x`, `toolsearch_mcp__github__x`), the catalog name inside it.
 */
export function resolveCallName(byName: ReadonlyMap<string, unknown>, name: string): string {
  if (byName.has(name)) return name;
  for (let i = name.indexOf("mcp__", 1); i > 0; i = name.indexOf("mcp__", i + 1)) {
    if (byName.has(name.slice(i))) return name.slice(i);
  }
  return name;
}
