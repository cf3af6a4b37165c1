// Prompt composition, pure. The system section (deferred names) and the core tools are frozen
// when a session starts; each turn's tools list is core tools, then toolSearch, then activated
// tools in activation order, so a session's prompt only ever grows at its end. All tool JSON is
// serialized canonically: equal inputs give equal bytes, which is what prefix caches key on.

import { canonicalJson, sha256Hex } from "./canonical.ts";

export const TOOL_SEARCH_NAME = "toolSearch";

/** A tool as the model sees it, before provider formatting. */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A catalog tool (or anything with its three fields) as the model sees it. */
export function toolDefinition(tool: ToolDefinition): ToolDefinition {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

export const TOOL_SEARCH_TOOL: ToolDefinition = {
  name: TOOL_SEARCH_NAME,
  description:
    "Load deferred tools so you can call them. `select:a,b` loads exact names (or <server>.<short name>); " +
    "other queries are keywords that load the best matches (`+word` requires a word; `mcp__<server> words` " +
    "searches one server); `mcp__<server>` alone lists a server's tools a page at a time (`page:2`), loading " +
    "nothing. Loaded tools are added to your tools list.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "`select:<names, comma-separated>`, keywords, or `mcp__<server>` to browse" },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "Most tools to load (default 5), or per browsed page (default 20)" },
    },
    required: ["query"],
    additionalProperties: false,
  },
};

export const CALL_TOOL_NAME = "callTool";

/** toolSearch under proxy activation, where the tools list never changes: loaded tools run through callTool. */
export const TOOL_SEARCH_PROXY_TOOL: ToolDefinition = {
  ...TOOL_SEARCH_TOOL,
  description: TOOL_SEARCH_TOOL.description.replace(
    "Loaded tools are added to your tools list.",
    `Your tools list does not change: the result gives each loaded tool's exact name and input schema; run it with ${CALL_TOOL_NAME}.`,
  ),
};

/** proxy activation: the one tool through which the model calls any tool loaded by toolSearch */
export const CALL_TOOL_TOOL: ToolDefinition = {
  name: CALL_TOOL_NAME,
  description:
    "Call a tool loaded with toolSearch (its schema is in the toolSearch result). " +
    "`name` is the tool's exact name; `arguments` must match its input schema.",
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "exact tool name, as listed by toolSearch" },
      arguments: { type: "object", description: "the tool's arguments" },
    },
    required: ["name", "arguments"],
    additionalProperties: false,
  },
};

export type PromptFormat = "openai" | "anthropic";

export function openaiTool(t: ToolDefinition) {
  return { type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } };
}

export function anthropicTool(t: ToolDefinition) {
  return { name: t.name, description: t.description, input_schema: t.inputSchema };
}

export function formatTool(t: ToolDefinition, format: PromptFormat): unknown {
  return format === "openai" ? openaiTool(t) : anthropicTool(t);
}

export interface PromptParts {
  /** frozen at session creation; empty in full mode */
  systemSection: string;
  /** core tools (alwaysLoad and profile tools), frozen at session creation */
  coreTools: readonly ToolDefinition[];
  /** false in full mode */
  withToolSearch: boolean;
  /** proxy activation: callTool follows toolSearch and `activated` stays empty */
  withCallTool?: boolean;
  /** activated tools, in activation order */
  activated: readonly ToolDefinition[];
  /** after the activated tools: runCode in a code-mode session (frozen.ts sessionPromptParts) */
  trailing?: readonly ToolDefinition[];
}

export interface ComposedPrompt {
  system: string;
  tools: unknown[];
  prefixHash: string;
  promptCacheKey: string;
}

export function promptTools(parts: PromptParts): ToolDefinition[] {
  return [
    ...parts.coreTools,
    ...(parts.withToolSearch ? [parts.withCallTool ? TOOL_SEARCH_PROXY_TOOL : TOOL_SEARCH_TOOL] : []),
    ...(parts.withCallTool ? [CALL_TOOL_TOOL] : []),
    ...parts.activated,
    ...(parts.trailing ?? []),
  ];
}

/** The canonical bytes of a tools array: each turn's bytes start with the previous turn's. */
export function toolsBytes(tools: readonly unknown[]): string {
  return canonicalJson(tools);
}

export async function composePrompt(parts: PromptParts, format: PromptFormat, cacheScope: string): Promise<ComposedPrompt> {
  const tools = promptTools(parts).map((t) => formatTool(t, format));
  const system = parts.systemSection;
  const prefixHash = await sha256Hex(`${format}\u0000${system}\u0000${toolsBytes(tools)}`);
  // the key names what every session of this scope shares: the frozen system and core tools
  const frozen = await sha256Hex(`${cacheScope}\u0000${system}\u0000${canonicalJson(parts.coreTools)}`);
  return { system, tools, prefixHash, promptCacheKey: `ts-${frozen.slice(0, 32)}` };
}
