// The deferred-tools listing: how a session's system section names the tools it can load, in one
// of four forms, richest first: `names` (every callable name, one per line), `grouped` (a line
// per server with its tools' short names), `servers` (a line per server: label, tool count, one-
// line summary) and `none` (counts, and how to search). Pure: a function of the listed entries
// and their servers, so any subset of a catalog (a tenant's allowed tools, tools a client
// declared) renders, and counts, the same way.
//
// Counting without a tokenizer: a section is a header plus pieces (a line, `<label>:`, ` <short>`)
// whose token counts add up, because tiktoken's pre-tokenizer (o200k_base, cl100k_base) never
// joins text across the boundaries used here: a line break before a name, `,` or `:` before
// ` <short>`, a space before a number. The catalog stores each piece's count (per tool, per
// server) and each header's; listingTokens() sums them. Exact, except that a short name ending
// in punctuation (`-`) can merge with the `,` or line break after it: at most 1 token over.

import { sanitizePart } from "./names.ts";
import { CALL_TOOL_NAME, TOOL_SEARCH_NAME } from "./prompt.ts";

/** richest first: `auto` picks the first that fits its budget */
export const LISTING_FORMS = ["names", "grouped", "servers", "none"] as const;
export type ListingForm = (typeof LISTING_FORMS)[number];
export type ListingRequest = ListingForm | "auto";
/** Bump when a header or line layout below changes: catalogs store token counts of these texts. */
export const LISTING_ID = "toolsearch-listing/1";

export interface ListingEntry {
  /** the callable (exposed) name */
  name: string;
  /** its server's name (ListingServer.name); none: listed by full name in every form but `none` */
  server?: string;
  /** the name under its server in `grouped` (the full name when it does not start with the server's prefix) */
  short: string;
  /** tokens of `${name}\n` and of ` ${short}` */
  tokens: { name: number; short: number };
}

export interface ListingServer {
  name: string;
  /** as in exposed names: mcp__<label>__<tool> */
  label: string;
  /** one line, for the `servers` form */
  summary: string;
  /** tokens of `${label}:` (grouped), and of its `servers` line without the tool count */
  tokens: { grouped: number; servers: number };
}

/** A server as exposed names spell it: mcp__<label>__<tool>, and the grouped listing's line label. */
export const serverLabel = (server: string): string => sanitizePart(server);

/** A name under its server's label (grouped short name); the full name if it lacks the prefix (cut names). */
export function shortName(name: string, label: string): string {
  const prefix = `mcp__${label}__`;
  return name.startsWith(prefix) && name.length > prefix.length ? name.slice(prefix.length) : name;
}

/** Listing entries of catalog tools (their stored token pieces), in their order. */
export function toolEntries(
  tools: ReadonlyArray<{ name: string; server: string; tokens: { name: number; short: number } }>,
): ListingEntry[] {
  return tools.map((t) => ({
    name: t.name,
    server: t.server,
    short: shortName(t.name, serverLabel(t.server)),
    tokens: { name: t.tokens.name, short: t.tokens.short },
  }));
}

/** Listing servers of catalog servers (their summaries and stored token pieces). */
export function serverEntries(
  servers: ReadonlyArray<{ name: string; summary: string; tokens: { grouped: number; servers: number } }>,
): ListingServer[] {
  return servers.map((s) => ({ name: s.name, label: serverLabel(s.name), summary: s.summary, tokens: s.tokens }));
}

/** Tokens of each form's header; `none`'s without its two numbers. */
export type ListingHeaders = Record<ListingForm, number>;

const LOADED = "Loaded tools appear in your tools list and stay loaded: call them directly.\n";

const HEADERS: Record<Exclude<ListingForm, "none">, string> = {
  names:
    "# Deferred tools\n" +
    `These tools exist but their schemas are not loaded. Before calling one, load it with ${TOOL_SEARCH_NAME}: ` +
    "`select:<name>[,<name>...]` loads exact names from this list; any other query searches by keywords " +
    `and loads the best matches. ${LOADED}`,
  grouped:
    "# Deferred tools\n" +
    "These tools exist but their schemas are not loaded. Each line is a server, then its tools' short names; " +
    "a tool's full name is mcp__<server>__<short name>. " +
    `Before calling one, load it with ${TOOL_SEARCH_NAME}: \`select:<name>[,<name>...]\` takes full names or ` +
    "<server>.<short name>; any other query searches by keywords and loads the best matches. " +
    `Loaded tools appear in your tools list under their full names and stay loaded: call them directly.\n`,
  servers:
    "# Deferred tools\n" +
    "The servers below have tools whose names and schemas are not loaded. " +
    `Find them with ${TOOL_SEARCH_NAME}: keywords describing the task search every tool and load the best matches ` +
    "(`mcp__<server> words` searches one server); `mcp__<server>` alone lists that server's tools, a page at a time, " +
    `and loads nothing; \`select:<name>[,<name>...]\` loads exact names. ${LOADED}`,
};

function noneHeader(tools: number, servers: number): string {
  return (
    "# Deferred tools\n" +
    `${tools} ${tools === 1 ? "tool" : "tools"} from ${servers} ${servers === 1 ? "server" : "servers"} exist but are not loaded, and their names are not listed. ` +
    `Find them with ${TOOL_SEARCH_NAME}: keywords describing the task search every tool and load the best matches; ` +
    `results name each tool's server, and \`mcp__<server>\` alone lists that server's tools a page at a time. ${LOADED}`
  );
}

// The headers above state what `inject` activation on the chat endpoint and REST does: a loaded
// tool joins the tools list. The two functions below restate that sentence for the other surfaces
// (the stored header token counts stay those of the headers above).
const LOADED_SENTENCE = /Loaded tools appear in your tools list (under their full names )?and stay loaded: call them directly\./;

/**
 * A section for a session whose tools list never changes (`proxy` activation: the MCP gateway's
 * stable surface, the chat endpoint's and REST's proxy): loaded tools are run with callTool.
 */
export function viaCallTool(section: string): string {
  return section.replace(
    LOADED_SENTENCE,
    `Loaded tools stay loaded; run one with ${CALL_TOOL_NAME} by the exact name the ${TOOL_SEARCH_NAME} result gives.`,
  );
}

/**
 * A section for the MCP gateway's dynamic form (`?activation=inject`): loaded tools join tools/list,
 * but a client shows them only once it re-lists, under its own prefix; callTool runs them at once.
 */
export function viaGatewayList(section: string): string {
  return section.replace(
    LOADED_SENTENCE,
    `Loaded tools join your tools list once your client re-lists it (under any prefix your client adds) and stay loaded; ` +
      `${CALL_TOOL_NAME} runs them at once, by the exact name the ${TOOL_SEARCH_NAME} result gives.`,
  );
}

/** A form's header text (`none` needs the counts it states). */
export function listingHeader(form: ListingForm, tools = 0, servers = 0): string {
  return form === "none" ? noneHeader(tools, servers) : HEADERS[form];
}

/** Tokens of a number written in digits: 1-3 digits are one token, in both encodings. */
export function numberTokens(n: number): number {
  return Math.ceil(String(n).length / 3);
}

export const nameLine = (name: string): string => `${name}\n`;
/** The `names` form of a list of callable names. */
export const deferredSection = (names: readonly string[]): string => HEADERS.names + names.map(nameLine).join("");
export const shortPiece = (short: string): string => ` ${short}`;
export const groupLabel = (label: string): string => `${label}:`;
export function serverLine(label: string, tools: number, summary: string): string {
  return `${label} (${tools} ${tools === 1 ? "tool" : "tools"}): ${summary}\n`;
}

interface Groups {
  /** servers with at least one listed entry, in the order of their first entry */
  groups: Array<{ server: ListingServer; entries: ListingEntry[] }>;
  loose: ListingEntry[];
}

function group(entries: readonly ListingEntry[], servers: readonly ListingServer[]): Groups {
  const byName = new Map(servers.map((s) => [s.name, s]));
  const groups = new Map<string, { server: ListingServer; entries: ListingEntry[] }>();
  const loose: ListingEntry[] = [];
  for (const e of entries) {
    const server = e.server === undefined ? undefined : byName.get(e.server);
    if (!server) {
      loose.push(e);
      continue;
    }
    let g = groups.get(server.name);
    if (!g) groups.set(server.name, (g = { server, entries: [] }));
    g.entries.push(e);
  }
  return { groups: [...groups.values()], loose };
}

/** The system section of one form. Entries keep their order; servers appear as their first entry does. */
export function listingSection(form: ListingForm, entries: readonly ListingEntry[], servers: readonly ListingServer[]): string {
  if (form === "names") return deferredSection(entries.map((e) => e.name));
  const { groups, loose } = group(entries, servers);
  if (form === "none") return noneHeader(entries.length, groups.length);
  const lines =
    form === "grouped"
      ? groups.map((g) => `${groupLabel(g.server.label)}${g.entries.map((e) => shortPiece(e.short)).join(",")}\n`)
      : groups.map((g) => serverLine(g.server.label, g.entries.length, g.server.summary));
  return HEADERS[form] + lines.join("") + loose.map((e) => nameLine(e.name)).join("");
}

/** Tokens of listingSection(form, entries, servers), summed from the stored pieces. */
export function listingTokens(
  form: ListingForm,
  entries: readonly ListingEntry[],
  servers: readonly ListingServer[],
  headers: ListingHeaders,
): number {
  const names = (list: readonly ListingEntry[]) => list.reduce((n, e) => n + e.tokens.name, 0);
  if (form === "names") return headers.names + names(entries);
  const { groups, loose } = group(entries, servers);
  if (form === "none") return headers.none + numberTokens(entries.length) + numberTokens(groups.length);
  let total = headers[form] + names(loose);
  for (const g of groups) {
    // grouped: `label:` + each ` short` + a `,` between them + the line break
    if (form === "grouped") total += g.server.tokens.grouped + g.entries.reduce((n, e) => n + e.tokens.short, 0) + g.entries.length;
    else total += g.server.tokens.servers + numberTokens(g.entries.length);
  }
  return total;
}

/** Every form's tokens for one set of entries: what `auto` chooses from. */
export function listingSizes(
  entries: readonly ListingEntry[],
  servers: readonly ListingServer[],
  headers: ListingHeaders,
): Record<ListingForm, number> {
  return Object.fromEntries(LISTING_FORMS.map((f) => [f, listingTokens(f, entries, servers, headers)])) as Record<ListingForm, number>;
}
