// Browsing a server: `toolSearch` with `mcp__<server>` and no other word answers a page of that
// server's tools (callable names and one-line descriptions) as text, loads nothing, and says how
// to load and how to reach the next page (`mcp__<server> page:2`). This is how a model that sees
// only servers (the `servers` listing) finds names without loading a whole server.

import type { CatalogTool } from "./catalog.ts";
import { serverLabel } from "./listing.ts";

export const BROWSE_PAGE_SIZE = 20;

export type BrowseOutcome =
  | { kind: "browse"; server: string; tools: CatalogTool[]; page: number; pages: number; total: number; first: number }
  | { kind: "browse"; server: string; tools: []; unknownServer: true; closest: string[] };

export const oneLine = (text: string, max = 160): string => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** Whether a tool is on the server a query names as `mcp__<label>` (the label as exposed names spell it; any case). */
export function onServer(t: CatalogTool, label: string): boolean {
  const own = serverLabel(t.server);
  return own === label || own.toLowerCase() === label.toLowerCase();
}

/** Page `page` (1-based) of the server's tools among `candidates` (all when absent), in name order. */
export function browseServer(
  tools: readonly CatalogTool[],
  label: string,
  page: number,
  pageSize: number,
  candidates?: ReadonlySet<string>,
): BrowseOutcome {
  const visible = candidates ? tools.filter((t) => candidates.has(t.name)) : tools;
  const own = visible.filter((t) => onServer(t, label));
  if (!own.length) {
    const labels = [...new Set(visible.map((t) => serverLabel(t.server)))];
    const near = (l: string) => (l.toLowerCase().includes(label.toLowerCase()) || label.toLowerCase().includes(l.toLowerCase()) ? 0 : 1);
    labels.sort((a, b) => near(a) - near(b) || Math.abs(a.length - label.length) - Math.abs(b.length - label.length) || (a < b ? -1 : 1));
    return { kind: "browse", server: label, tools: [], unknownServer: true, closest: labels.slice(0, 5) };
  }
  const pages = Math.ceil(own.length / pageSize);
  const first = (page - 1) * pageSize;
  return {
    kind: "browse",
    server: serverLabel(own[0]!.server),
    tools: own.slice(first, first + pageSize),
    page,
    pages,
    total: own.length,
    first: first + 1,
  };
}

/** The tool-result text of a browse. */
export function formatBrowse(o: BrowseOutcome): string {
  if ("unknownServer" in o)
    return `No server "${oneLine(o.server, 64)}". Servers: ${o.closest.join(", ")}${o.closest.length ? "" : "(none)"}. Browse one with mcp__<server>, or search with keywords.`;
  if (!o.tools.length)
    return `Server ${o.server} has ${o.total} tools in ${o.pages} page${o.pages > 1 ? "s" : ""}; there is no page ${o.page}.`;
  const last = o.first + o.tools.length - 1;
  const lines = [
    `Server ${o.server}: ${o.total} tools, ${o.first}-${last} shown (page ${o.page} of ${o.pages}). Nothing was loaded: load tools with select:<name>[,<name>...], or search with keywords.`,
    ...o.tools.map((t) => `- ${t.name}: ${oneLine(t.description, 100)}`),
  ];
  if (o.page < o.pages) lines.push(`Next page: mcp__${o.server} page:${o.page + 1}`);
  return lines.join("\n");
}
