// Who may see and call which tool: POLICY.access, pure. A global `disabled` list, then the rules
// of the caller's tenant (`tenants.<tenant>`) or, for a tenant without an entry, `default`:
// `allow` (when given, only matching tools), `deny`, and rules on MCP annotations
// (`denyAnnotations`, `requireAnnotations`). Patterns are globs (`*`, `?`) over exposed names, or
// `server:<glob>` over server names. A session freezes its tenant's rules at creation (AccessRules
// in SessionInit), so its deferred section never changes. Every surface asks `sessionAccess` of the
// session (its rules; an MCP session also its servers) for what to show and search; what loads
// and runs is decided by the session object's one gate (gate.ts), which adds the rules deployed now.

import type { CatalogTool } from "./catalog.ts";
import { canonicalJson } from "./canonical.ts";
import { ToolsearchError } from "./errors.ts";

type Annotations = Record<string, boolean>;

export interface AccessLayer {
  allow?: string[];
  deny?: string[];
  denyAnnotations?: Annotations;
  requireAnnotations?: Annotations;
}

/** POLICY.access in wrangler.toml */
export interface AccessConfig {
  disabled?: string[];
  default?: AccessLayer;
  tenants?: Record<string, AccessLayer>;
}

/** One tenant's rules as a session freezes them. */
export interface AccessRules extends AccessLayer {
  disabled: string[];
  /** where the layer came from, for reasons: "default" or "tenant <name>" */
  source: string;
}

export type AccessDecision = { allowed: true } | { allowed: false; reason: string };

const LAYER_KEYS = new Set(["allow", "deny", "denyAnnotations", "requireAnnotations"]);
const HINTS = new Set(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]);

function checkLayer(layer: unknown, where: string): AccessLayer {
  if (!layer || typeof layer !== "object" || Array.isArray(layer)) throw bad(`${where} must be a table`);
  for (const [k, v] of Object.entries(layer)) {
    if (!LAYER_KEYS.has(k)) throw bad(`${where}.${k} is not a rule (allow, deny, denyAnnotations, requireAnnotations)`);
    if ((k === "allow" || k === "deny") && !(Array.isArray(v) && v.every((p) => typeof p === "string")))
      throw bad(`${where}.${k} must be a list of patterns`);
    if (k.endsWith("Annotations")) {
      for (const [hint, value] of Object.entries((v ?? {}) as object)) {
        if (!HINTS.has(hint) || typeof value !== "boolean")
          throw bad(`${where}.${k}.${hint} must be one of ${[...HINTS].join(", ")} = true/false`);
      }
    }
  }
  return layer as AccessLayer;
}

const bad = (m: string) => new ToolsearchError("internal", `POLICY.access: ${m}`);

/** Check POLICY.access (a config error names the rule) and pick the tenant's frozen rules. */
export function accessFor(config: AccessConfig | undefined, tenant: string): AccessRules {
  const c = config ?? {};
  const disabled = c.disabled ?? [];
  if (!Array.isArray(disabled) || !disabled.every((p) => typeof p === "string")) throw bad("disabled must be a list of patterns");
  const own = c.tenants?.[tenant];
  const layer = own ? checkLayer(own, `tenants.${tenant}`) : c.default ? checkLayer(c.default, "default") : {};
  return { disabled: [...disabled], ...layer, source: own ? `tenant ${tenant}` : "default" };
}

const globs = new Map<string, RegExp>();
function glob(p: string): RegExp {
  let re = globs.get(p);
  if (!re)
    globs.set(
      p,
      (re = new RegExp(
        `^${p
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".")}$`,
      )),
    );
  return re;
}

/** The first of `patterns` that names the tool: a glob over its exposed name, or `server:<glob>` over its server. */
export function matching(tool: Pick<CatalogTool, "name" | "server">, patterns: readonly string[] | undefined): string | undefined {
  return patterns?.find((p) => (p.startsWith("server:") ? glob(p.slice(7)).test(tool.server) : glob(p).test(tool.name)));
}

/** Whether a `server:<glob>` pattern of the rules' `allow` names `server` (a tool pattern does not). */
export function allowsServer(rules: AccessRules | undefined, server: string): boolean {
  return !!rules?.allow?.some((p) => p.startsWith("server:") && glob(p.slice(7)).test(server));
}

/** MCP's defaults for a hint the server left out (spec: destructive and open-world unless told). */
export function hint(tool: Pick<CatalogTool, "annotations">, name: string): boolean {
  const a = (tool.annotations ?? {}) as Record<string, unknown>;
  if (typeof a[name] === "boolean") return a[name] as boolean;
  if (name === "destructiveHint") return a.readOnlyHint !== true;
  return name === "openWorldHint";
}

export function checkAccess(rules: AccessRules | undefined, tool: Pick<CatalogTool, "name" | "server" | "annotations">): AccessDecision {
  if (!rules) return { allowed: true };
  let p = matching(tool, rules.disabled);
  if (p) return { allowed: false, reason: `disabled globally (POLICY.access.disabled: ${p})` };
  p = matching(tool, rules.deny);
  if (p) return { allowed: false, reason: `denied by ${rules.source} (deny: ${p})` };
  if (rules.allow && !matching(tool, rules.allow))
    return { allowed: false, reason: `not allowed for ${rules.source} (allow: ${rules.allow.join(", ")})` };
  for (const [name, value] of Object.entries(rules.denyAnnotations ?? {})) {
    if (hint(tool, name) === value) return { allowed: false, reason: `denied by ${rules.source} (denyAnnotations: ${name} is ${value})` };
  }
  for (const [name, value] of Object.entries(rules.requireAnnotations ?? {})) {
    if (hint(tool, name) !== value)
      return { allowed: false, reason: `denied by ${rules.source} (requireAnnotations: ${name} must be ${value})` };
  }
  return { allowed: true };
}

/** What one session may see of its catalog: `candidates` undefined when everything is visible. */
export interface AccessView {
  candidates: ReadonlySet<string> | undefined;
  /** denied exposed names, with the reason (for the audit trail; clients get a plain refusal) */
  denied: ReadonlyMap<string, string>;
}

const ALL: AccessView = { candidates: undefined, denied: new Map() };
const views = new WeakMap<readonly CatalogTool[], Map<string, AccessView>>();

/** The session's view of a catalog, cached per catalog and rules (both immutable). */
export function accessView(tools: readonly CatalogTool[], rules: AccessRules | undefined): AccessView {
  if (!rules) return ALL;
  let byRules = views.get(tools);
  if (!byRules) views.set(tools, (byRules = new Map()));
  const key = canonicalJson(rules);
  let view = byRules.get(key);
  if (!view) {
    const denied = new Map<string, string>();
    const candidates = new Set<string>();
    for (const t of tools) {
      const d = checkAccess(rules, t);
      if (d.allowed) candidates.add(t.name);
      else denied.set(t.name, d.reason);
    }
    view = denied.size ? { candidates, denied } : ALL;
    if (byRules.size > 100) byRules.clear();
    byRules.set(key, view);
  }
  return view;
}

/** The clear error for a denied tool, the same on every surface. */
export function notAvailable(name: string): string {
  return `tool ${name.slice(0, 80)} is not available in this session (access policy)`;
}

export const NOT_OFFERED = "its server is not reachable from this gateway (clients run it)";
const gatewayViews = new WeakMap<AccessView, Map<string, AccessView>>();

/** An access view narrowed to some servers (an MCP session's): other tools are refused like denied ones. */
function narrowToServers(tools: readonly CatalogTool[], view: AccessView, servers: readonly string[]): AccessView {
  let byServers = gatewayViews.get(view);
  if (!byServers) gatewayViews.set(view, (byServers = new Map()));
  const key = servers.join("\u0000");
  let narrowed = byServers.get(key);
  if (!narrowed) {
    const keep = new Set(servers);
    const candidates = new Set<string>();
    const denied = new Map(view.denied);
    for (const t of tools) {
      if (view.candidates && !view.candidates.has(t.name)) continue;
      if (keep.has(t.server)) candidates.add(t.name);
      else denied.set(t.name, NOT_OFFERED);
    }
    byServers.set(key, (narrowed = { candidates, denied }));
  }
  return narrowed;
}

/**
 * The one view of what a session may see and call: its tenant's frozen access rules, and for an
 * MCP session only the servers the gateway reached when it started. Every surface asks this.
 */
export function sessionAccess(
  tools: readonly CatalogTool[],
  s: { access?: AccessRules; mcp?: { servers: readonly string[] } },
): AccessView {
  const view = accessView(tools, s.access);
  return s.mcp ? narrowToServers(tools, view, s.mcp.servers) : view;
}
