// The tool-result text of a toolSearch for the model: what was loaded and how to call it, what
// was already loaded, unknown or refused select: names, a server's browse hint, or no match.
// Pure; the outcome comes from search.ts, the loaded names from the session.

import { formatBrowse, oneLine } from "./browse.ts";
import type { SearchOutcome } from "./search.ts";

/**
 * The tool-result text for the model, once the session has said which names were new. `via` says
 * how a loaded tool is called: `tools`, from the tools list it joins (inject activation); `callTool`
 * (proxy activation: the list never changes); `gateway`, the MCP gateway's dynamic form (it joins
 * tools/list once the client re-lists, under the client's prefix; callTool runs it at once).
 */
export function formatResult(
  outcome: SearchOutcome,
  loaded: readonly string[],
  alreadyLoaded: readonly string[],
  query: string,
  via: "tools" | "callTool" | "gateway" = "tools",
): string {
  if (outcome.kind === "error") return outcome.message;
  if (outcome.kind === "browse") return formatBrowse(outcome);
  const lines: string[] = [];
  const byName = new Map<string, string>();
  if (outcome.kind === "select") outcome.found.forEach((t) => byName.set(t.name, t.description));
  else outcome.matches.forEach((m) => byName.set(m.name, m.description));
  if (loaded.length) {
    const it = loaded.length > 1 ? ["they join", "them"] : ["it joins", "it"];
    const how =
      via === "callTool"
        ? "call through callTool"
        : via === "gateway"
          ? `${it[0]} your tools list once your client re-lists it; callTool runs ${it[1]} now`
          : loaded.length > 1
            ? "they are now in your tools list, call them directly"
            : "it is now in your tools list, call it directly";
    lines.push(loaded.length > 1 ? `Loaded ${loaded.length} tools; ${how}:` : `Loaded 1 tool; ${how}:`);
    for (const n of loaded) lines.push(`- ${n}: ${oneLine(byName.get(n) ?? "")}`);
  }
  if (alreadyLoaded.length)
    lines.push(`Already loaded — call ${alreadyLoaded.join(", ")} ${via === "tools" ? "directly now" : "through callTool"}.`);
  if (outcome.kind === "select") {
    for (const u of outcome.unknown) {
      lines.push(
        u.denied
          ? `Tool ${oneLine(u.name, 80)} is not available in this session (access policy).`
          : u.ambiguous
            ? `"${oneLine(u.name, 80)}" is the short name of several tools; select one by full name: ${u.suggestions.join(", ")}.`
            : `Unknown tool "${oneLine(u.name, 80)}". Closest names: ${u.suggestions.join(", ")}.`,
      );
    }
  } else {
    if (outcome.serverTotal !== undefined && outcome.serverTotal > outcome.matches.length) {
      lines.push(
        `Server ${outcome.server} has ${outcome.serverTotal} tools: browse them with mcp__${outcome.server} (a page at a time, loads nothing).`,
      );
    }
    if (!outcome.matches.length)
      lines.push(
        `No tools matched "${oneLine(query, 80)}". Try other keywords, or select: with an exact name from the deferred tools list.`,
      );
  }
  return lines.join("\n");
}
