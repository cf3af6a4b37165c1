// One toolSearch call, as every surface answers it (the REST tool-search route, the chat endpoint's
// agent loop, the MCP gateway's toolSearch tool): parse, rank in
// the session's catalog within its access view (denied tools are never found; naming one is a
// refusal, audited as a denial), record the activation (passed in: the session object does it
// atomically, with its audit rows), and the result text. In proxy mode the result also carries the
// loaded tools' schemas, since the model's tools list never changes there and it calls them
// through callTool; on the MCP gateway it always does (mcp-gateway.ts), since a client may not
// re-list in time and adds its own prefix to tool names. The result's wording follows the same
// three cases (formatResult: tools list, callTool, the gateway's dynamic form). A code-mode session's
// result shows the loaded tools as TypeScript declarations for runCode instead (run-code-tool.ts).

import type { AccessView } from "./access.ts";
import type { CatalogTool } from "./catalog.ts";
import type { Activation } from "./chat.ts";
import { gatewayCallGuide } from "./mcp-gateway.ts";
import { codeGuide } from "./run-code-tool.ts";
import { toolDefinition } from "./prompt.ts";
import { DEFAULT_LIMIT, parseQuery, runSearch, type Match, type SearchCatalog } from "./search.ts";
import { formatResult } from "./search-result.ts";

export interface ActivationResult {
  loaded: string[];
  alreadyLoaded: string[];
  activations: string[];
  /** names the session's tool gate refused (core/gate.ts): not loaded, audited as denials */
  denied?: string[];
}

/** What the session's audit rows of a search need besides the names. */
export interface ActivationAudit {
  /** names the query asked for that the access policy denies, with the reason */
  denied?: Array<{ name: string; reason: string }>;
  /** how many tools the search matched */
  matched?: number;
  /** the surface: rest, chat, mcp */
  via?: string;
  /** the client program the surface names (MCP clientInfo `name/version`) */
  client?: string;
  /** names a call (or a tool_choice) loads for itself, not a toolSearch: no search row is audited */
  load?: true;
}

/** Record names as activated (the I/O side throws when the session no longer exists). */
export type Activate = (names: string[], query: string, audit?: ActivationAudit) => Promise<ActivationResult>;

export interface ToolSearchAnswer {
  result: string;
  /** the query was refused (empty, too long, bad limit or select: list); `result` says why */
  isError: boolean;
  loaded: string[];
  alreadyLoaded: string[];
  matches: Match[];
  activations?: string[];
}

export function proxySchemas(byName: ReadonlyMap<string, CatalogTool>, names: readonly string[]): string {
  if (!names.length) return "";
  const lines = names.flatMap((n) => (byName.has(n) ? [JSON.stringify(toolDefinition(byName.get(n)!))] : []));
  return `\n\nSchemas (call with callTool({"name": ..., "arguments": {...}})):\n${lines.join("\n")}`;
}

export async function answerToolSearch(
  cat: SearchCatalog,
  session: { mode: "deferred" | "full"; activation: Activation; code?: "on" },
  query: unknown,
  limit: unknown,
  activate: Activate,
  view?: AccessView,
  via?: string,
): Promise<ToolSearchAnswer> {
  const parsed = parseQuery(query, limit);
  if (session.mode === "full" && parsed.kind !== "error") {
    return {
      result: "All tools are already loaded in this session; call them directly.",
      isError: false,
      loaded: [],
      alreadyLoaded: [],
      matches: [],
    };
  }
  const outcome = runSearch(cat, parsed, (limit as number | undefined) ?? DEFAULT_LIMIT, view?.candidates);
  const names =
    outcome.kind === "select" ? outcome.found.map((t) => t.name) : outcome.kind === "keywords" ? outcome.matches.map((m) => m.name) : [];
  const denied =
    outcome.kind === "select"
      ? outcome.unknown.filter((u) => u.denied).map((u) => ({ name: u.name, reason: view?.denied.get(u.name) ?? "denied" }))
      : [];
  // bad queries are answers for the model, not failures: nothing is recorded for them
  const activation =
    outcome.kind === "error"
      ? { loaded: [], alreadyLoaded: [], activations: undefined }
      : await activate(names, String(query), { denied, matched: names.length, via });
  const listed = (tools: readonly CatalogTool[], score: number) =>
    tools.map((t) => ({ name: t.name, description: t.description, score, words: [] as string[], fields: [] as string[] }));
  // a browse loads nothing: its matches are the page it shows
  const matches =
    outcome.kind === "keywords"
      ? outcome.matches
      : outcome.kind === "select"
        ? listed(outcome.found, 1)
        : outcome.kind === "browse"
          ? listed(outcome.tools, 0)
          : [];
  const proxy = session.activation === "proxy";
  let result = formatResult(
    outcome,
    activation.loaded,
    activation.alreadyLoaded,
    typeof query === "string" ? query : "",
    proxy ? "callTool" : via === "mcp" ? "gateway" : "tools",
  );
  // names the session's gate refused though the frozen view offered them (a rule changed since)
  const refused = new Set("denied" in activation ? activation.denied : []);
  for (const name of refused) result += `\nTool ${name} is not available in this session (access policy).`;
  const shown = [...activation.loaded, ...activation.alreadyLoaded];
  if (session.code === "on") result += codeGuide(cat.byName, shown);
  else if (via === "mcp") result += gatewayCallGuide(cat.byName, shown);
  else if (proxy) result += proxySchemas(cat.byName, shown);
  return {
    result,
    isError: outcome.kind === "error",
    loaded: activation.loaded,
    alreadyLoaded: activation.alreadyLoaded,
    matches: refused.size ? matches.filter((m) => !refused.has(m.name)) : matches,
    activations: activation.activations,
  };
}
