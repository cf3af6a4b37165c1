// What a session freezes when it starts: mode and reason (from the policy), the listing form and
// its system section (listing-choice.ts), and the core tool list. Later turns only append
// activations, so these bytes never change for the session's life, even when a newer catalog is
// deployed meanwhile.

import type { Catalog, CatalogTool } from "./catalog.ts";
import { ToolsearchError } from "./errors.ts";
import { freezeListing } from "./listing-choice.ts";
import type { ListingForm, ListingRequest } from "./listing.ts";
import { decideMode, resolveProfile, type Deferral, type Mode, type PolicyConfig } from "./policy.ts";
import { toolDefinition, type PromptParts } from "./prompt.ts";
import { RUN_CODE_TOOL } from "./run-code-tool.ts";
import { definitionTokens } from "./summary.ts";

export interface SessionRequest {
  model: string;
  profile: string;
  deferral: Deferral;
  contextWindow?: number;
  /** the listing form; default: the profile's, else auto */
  listing?: ListingRequest;
}

export interface FrozenSession {
  mode: Mode;
  reason: string;
  systemSection: string;
  coreTools: string[];
  /** deferred sessions: the form of systemSection */
  listing?: ListingForm;
}

function requireTools(catalog: Pick<Catalog, "name" | "version" | "tools">, names: readonly string[], where: string): void {
  const known = new Set(catalog.tools.map((t) => t.name));
  const missing = names.filter((n) => !known.has(n));
  if (missing.length)
    throw new ToolsearchError(
      "bad_request",
      `${where} names tools not in catalog ${catalog.name}@${catalog.version}: ${missing.join(", ")}`,
    );
}

export function freezeSession(
  catalog: Pick<Catalog, "name" | "version" | "tools" | "servers" | "listing">,
  policy: PolicyConfig,
  req: SessionRequest,
): FrozenSession {
  const profile = resolveProfile(policy, req.profile);
  if (profile.subAgent) {
    const tools = profile.tools ?? [];
    requireTools(catalog, tools, `profile "${req.profile}"`);
    return { ...decideMode(policy, { ...req, deferrableTokens: 0 }), systemSection: "", coreTools: [...tools] };
  }
  const core = [...catalog.tools.filter((t) => t.alwaysLoad).map((t) => t.name)];
  // a name outside the catalog's mcp__ namespace is a client tool's: kept when a chat request declares it (client-tools.ts)
  for (const n of profile.coreTools ?? []) if (!core.includes(n) && n.startsWith("mcp__")) core.push(n);
  requireTools(catalog, core, `profile "${req.profile}"`);
  const coreSet = new Set(core);
  const deferrable = catalog.tools.filter((t) => !coreSet.has(t.name));
  const deferrableTokens = definitionTokens(deferrable);
  const decision = decideMode(policy, { ...req, deferrableTokens });
  if (decision.mode === "full") return { ...decision, systemSection: "", coreTools: [...core, ...deferrable.map((t) => t.name)] };
  const listing = freezeListing(catalog, deferrable, policy, req);
  return {
    mode: decision.mode,
    reason: `${decision.reason}; ${listing.reason}`,
    listing: listing.form,
    systemSection: listing.section,
    coreTools: core,
  };
}

/** The prompt parts of a session from its frozen fields and activations, resolved in its own catalog. */
export function sessionPromptParts(
  byName: ReadonlyMap<string, CatalogTool>,
  s: {
    mode: Mode;
    activation?: "inject" | "proxy";
    systemSection: string;
    coreTools: readonly string[];
    activations: readonly string[];
    code?: "on";
  },
): PromptParts {
  const def = (name: string) => {
    const tool = byName.get(name);
    if (!tool) throw new ToolsearchError("catalog_mismatch", `tool ${name} is not in the session's catalog`);
    return toolDefinition(tool);
  };
  const proxy = s.mode === "deferred" && s.activation === "proxy";
  return {
    systemSection: s.systemSection,
    coreTools: s.coreTools.map(def),
    withToolSearch: s.mode === "deferred",
    withCallTool: proxy,
    activated: proxy ? [] : s.activations.map(def),
    // runCode last, as every surface offers it: the REST prompt, chat, Responses and Messages
    ...(s.code === "on" ? { trailing: [RUN_CODE_TOOL] } : {}),
  };
}

/** Whether `name` is loaded in a session: every tool in full mode, else its core tools and activations. */
export function isLoaded(s: { mode: string; coreTools: readonly string[]; activations: readonly string[] }, name: string): boolean {
  return s.mode === "full" || s.coreTools.includes(name) || s.activations.includes(name);
}
