// Tools a client declares in its own chat request (`tools`), deferred under the same policy as
// catalog tools: what stays loaded (the profile's coreTools, names in x-toolsearch-core, tools the
// catalog side already loads; everything below the threshold), the part of the deferred section
// that lists the rest, and the union over the session's catalog that toolSearch ranks in (the
// same ranking, search.ts, over an index built from the request's tools). A client tool wins over
// a catalog tool of the same name: its schema is the one that will run. A client that marks tools
// `defer_loading: true` (OpenAI's shape) decides itself: exactly those are deferred, whatever the
// threshold; the flag never reaches the upstream. Pure; the per-isolate cache of built sets is
// worker/chat/tool-set-cache.ts.

import type { CatalogTool } from "./catalog.ts";
import type { OpenAITool } from "./chat.ts";
import { decideMode, resolveProfile, type Deferral, type PolicyConfig } from "./policy.ts";
import { listingHeader, nameLine, viaCallTool } from "./listing.ts";
import type { SearchCatalog } from "./search.ts";
import { rankingIndex } from "./tool-index.ts";

/**
 * Estimated o200k tokens per character of a tool's canonical JSON. The Worker has no tokenizer;
 * calibrated on the demo catalog (demo@1.0.3: 65,647 tokens of definitions over 288,476
 * characters, 0.2276; per tool p5-p95 0.205-0.249). test/node/client-tools.test.ts recomputes it.
 */
export const TOKENS_PER_CHAR = 0.2276;

/**
 * Heap bytes a built set holds per character of its tools' canonical JSON (the tools, the search
 * entries and the index), measured by `npm run bench:agent` (RESULTS.md section 7).
 */
export const BYTES_PER_CHAR = 6;

export interface ClientToolSet {
  /** sha256 of the canonical JSON of the tools array, in the client's order */
  hash: string;
  tools: readonly OpenAITool[];
  /**
   * the tools as search sees them: no server, the client's name, description and parameters;
   * `tokens.definition` is the estimate
   */
  catalog: SearchCatalog;
  /** estimated heap bytes, for the cache's bound */
  bytes: number;
}

function entry(t: OpenAITool, tokens: number): CatalogTool {
  const f = t.function;
  return {
    name: f.name,
    server: "",
    originalName: f.name,
    description: f.description ?? "",
    inputSchema: f.parameters ?? {},
    tokens: { definition: tokens, name: 0, short: 0 },
  };
}

/** `lengths[i]` is the length of canonicalJson(tools[i]) (computed once, for the hash and here). The
 * index is built by the first search: most requests never search a set, and tokenizing was most of a miss. */
export function buildClientToolSet(tools: readonly OpenAITool[], lengths: readonly number[], hash: string): ClientToolSet {
  const entries = tools.map((t, i) => entry(t, Math.ceil(lengths[i]! * TOKENS_PER_CHAR)));
  let index: SearchCatalog["index"] | undefined;
  const catalog: SearchCatalog = {
    tools: entries,
    byName: new Map(entries.map((t) => [t.name, t])),
    get index() {
      return (index ??= rankingIndex(entries));
    },
  };
  const chars = lengths.reduce((n, c) => n + c, 0);
  return { hash, tools, catalog, bytes: Math.round(chars * BYTES_PER_CHAR) };
}

/** What a session decided for one tool set; stored with the session (SessionInit.clientTools). */
export interface ClientPlan {
  /** the ClientToolSet hash and the x-toolsearch-core names this plan was made for */
  hash: string;
  core: string[];
  /** client tools in the tools list from the start, in the client's order */
  kept: string[];
  deferred: number;
  /** the client part of the deferred section ("" when nothing new is listed) */
  section: string;
  reason: string;
}

export interface PlanContext {
  policy: PolicyConfig;
  model: string;
  profile: string;
  deferral: Deferral;
  contextWindow?: number;
  /** catalog tools already in the session's tools list: its core tools (every tool in full mode) */
  catalogLoaded: readonly string[];
  /** the session's own section; when empty the client section brings the deferred-tools header */
  catalogSection: string;
  /** a deferred client tool with a catalog name is listed by the catalog section already */
  catalogNames: { has(name: string): boolean };
  /** proxy activation: the tools list never changes, loaded tools run through callTool */
  proxy?: boolean;
}

export const CLIENT_SECTION_HEADER = "## Deferred tools from your request\n";

/** The client part of the deferred section: its deferred names, sorted, one per line. */
export function clientSection(names: readonly string[], standalone: boolean, proxy = false): string {
  if (!names.length) return "";
  const header = standalone ? (proxy ? viaCallTool(listingHeader("names")) : listingHeader("names")) : CLIENT_SECTION_HEADER;
  return header + [...names].sort().map(nameLine).join("");
}

/** The client's own `defer_loading` flag, at the tool's top level (Responses, Baseten) or in `function`. */
export function defersItself(t: OpenAITool): boolean {
  return t.defer_loading === true || t.function.defer_loading === true;
}

/** The tool as the upstream sees it: without OpenAI's deferral flag. The same object when it has none. */
export function upstreamClientTool(t: OpenAITool): OpenAITool {
  if (t.defer_loading === undefined && t.function.defer_loading === undefined) return t;
  const { defer_loading: _d, ...fn } = t.function;
  const { defer_loading: _t, ...rest } = t;
  return { ...rest, function: fn };
}

/** Which client tools stay loaded and which are deferred: the session's policy, estimated tokens. */
export function planClientTools(set: ClientToolSet, core: readonly string[], ctx: PlanContext): ClientPlan {
  const names = set.tools.map((t) => t.function.name);
  const flagged = set.tools.filter(defersItself).map((t) => t.function.name);
  if (flagged.length) {
    // the client said which of its tools are deferred: no threshold, no profile
    const deferred = new Set(flagged);
    return {
      hash: set.hash,
      core: [...core],
      kept: names.filter((n) => !deferred.has(n)),
      deferred: flagged.length,
      section: clientSection(
        flagged.filter((n) => !ctx.catalogNames.has(n)),
        ctx.catalogSection === "",
        ctx.proxy,
      ),
      reason: `${flagged.length} of ${names.length} client tools deferred: the client marked them defer_loading`,
    };
  }
  const keep = new Set([...(resolveProfile(ctx.policy, ctx.profile).coreTools ?? []), ...core, ...ctx.catalogLoaded]);
  const deferrable = names.filter((n) => !keep.has(n));
  const tokens = deferrable.reduce((sum, n) => sum + set.catalog.byName.get(n)!.tokens.definition, 0);
  const decision = decideMode(ctx.policy, {
    model: ctx.model,
    profile: ctx.profile,
    deferral: ctx.deferral,
    contextWindow: ctx.contextWindow,
    deferrableTokens: tokens,
  });
  const base = { hash: set.hash, core: [...core] };
  if (decision.mode === "full" || !deferrable.length) {
    return {
      ...base,
      kept: names,
      deferred: 0,
      section: "",
      reason: `all ${names.length} client tools loaded: ${decision.reason} (estimated tokens)`,
    };
  }
  const section = clientSection(
    deferrable.filter((n) => !ctx.catalogNames.has(n)),
    ctx.catalogSection === "",
    ctx.proxy,
  );
  const kept = names.filter((n) => keep.has(n));
  return {
    ...base,
    kept,
    deferred: deferrable.length,
    section,
    reason: `${deferrable.length} of ${names.length} client tools deferred: ${decision.reason} (estimated tokens)`,
  };
}

/**
 * Tools a `tool_choice` forces (`{type: "function", function: {name}}`, or the names of an
 * `allowed_tools` choice): they must be in `tools` for the request, so a deferred one is loaded first.
 */
export function forcedNames(toolChoice: unknown): string[] {
  const c = toolChoice as {
    type?: unknown;
    function?: { name?: unknown };
    allowed_tools?: { tools?: Array<{ function?: { name?: unknown } }> };
  } | null;
  if (!c || typeof c !== "object") return [];
  if (c.type === "function" && typeof c.function?.name === "string") return [c.function.name];
  if (c.type === "allowed_tools" && Array.isArray(c.allowed_tools?.tools))
    return c.allowed_tools.tools.flatMap((t) => (typeof t?.function?.name === "string" ? [t.function.name] : []));
  return [];
}

/** Two maps read as one; `top` wins. */
class Overlay<V> implements ReadonlyMap<string, V> {
  readonly top: ReadonlyMap<string, V>;
  readonly base: ReadonlyMap<string, V>;
  constructor(top: ReadonlyMap<string, V>, base: ReadonlyMap<string, V>) {
    this.top = top;
    this.base = base;
  }
  get(k: string): V | undefined {
    return this.top.get(k) ?? this.base.get(k);
  }
  has(k: string): boolean {
    return this.top.has(k) || this.base.has(k);
  }
  get size(): number {
    return [...this.keys()].length;
  }
  *entries(): MapIterator<[string, V]> {
    yield* this.top.entries();
    for (const e of this.base.entries()) if (!this.top.has(e[0])) yield e;
  }
  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }
  forEach(fn: (v: V, k: string, m: ReadonlyMap<string, V>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }
}

/**
 * The client's tools over the session's catalog, as one SearchCatalog: names resolve to the
 * client's tool first; keyword queries rank in both (search.ts `sources`) and merge.
 */
export function withClientTools(catalog: SearchCatalog, set: ClientToolSet): SearchCatalog {
  if (!set.tools.length) return catalog;
  const own = set.catalog;
  let tools: CatalogTool[] | undefined;
  return {
    byName: new Overlay(own.byName, catalog.byName),
    get tools() {
      return (tools ??= [...own.tools, ...catalog.tools.filter((t) => !own.byName.has(t.name))]);
    },
    get index(): never {
      throw new Error("a union of catalogs ranks through its sources");
    },
    sources: [own, catalog],
  };
}
