// The one tool gate: may a session load or run a catalog tool? Three checks, all must pass:
// the rules the session froze at creation (its tenant's access rules and, for an MCP session, the
// servers the gateway reached: access.ts sessionAccess), the deployment's rules now (the tenant's
// POLICY.access as deployed today, so a revoked tool stops loading and running in live sessions),
// and the profile's `tools` whitelist (a sub-agent profile runs exactly its tools). SessionDO asks
// it on every load (toolSearch, tool_choice, a call loading its tool) and every call; the catalog
// routes filter by its rule part. Names outside the catalog (a client's own tools) are not gated:
// access rules govern catalog tools. The same checks decide which servers serve their resources
// and prompts through the gateway (serverGate), and which calls need a person's yes first
// (approvalGate: POLICY.approval, approval-rules.ts). Pure; the live rules are derived once per policy object.

import { accessFor, accessView, allowsServer, sessionAccess, type AccessRules, type AccessView } from "./access.ts";
import { approvalFor, approvalNeed, type ApprovalNeed, type ApprovalRules } from "./approval-rules.ts";
import type { CatalogTool } from "./catalog.ts";
import type { PolicyConfig } from "./policy.ts";

/** The deployment's rules now, as far as one tenant's sessions need them (small: crosses RPC). */
export interface LiveRules {
  access: AccessRules;
  /** which calls need a person's yes (approval-rules.ts), as deployed now */
  approval: ApprovalRules;
  /** profile name -> its `tools` whitelist, for the profiles that have one */
  whitelists: Record<string, string[]>;
}

/** What the gate reads of a session: its frozen rules, servers, profile and whitelist. */
export interface GatedSession {
  access?: AccessRules;
  mcp?: { servers: readonly string[] };
  profile: string;
  /** the profile's `tools` frozen at creation (sub-agent profiles) */
  whitelist?: string[];
}

const live = new WeakMap<PolicyConfig, Map<string, LiveRules>>();

/** The tenant's live rules from the deployment's policy, derived once per policy object and tenant. */
export function liveRules(policy: PolicyConfig, tenant: string): LiveRules {
  let byTenant = live.get(policy);
  if (!byTenant) live.set(policy, (byTenant = new Map()));
  let rules = byTenant.get(tenant);
  if (!rules) {
    const whitelists: Record<string, string[]> = {};
    for (const [name, p] of Object.entries(policy.profiles)) if (p.tools) whitelists[name] = p.tools;
    rules = { access: accessFor(policy.access, tenant), approval: approvalFor(policy.approval, tenant), whitelists };
    byTenant.set(tenant, rules);
  }
  return rules;
}

/** Why `name` may not be loaded or run in the session; undefined: it may (or it is no catalog tool). */
export type Gate = (name: string) => string | undefined;

export function toolGate(tools: readonly CatalogTool[], byName: ReadonlyMap<string, unknown>, s: GatedSession, now: LiveRules): Gate {
  const frozen = sessionAccess(tools, s);
  const current = accessView(tools, now.access);
  const lists = [s.whitelist, now.whitelists[s.profile]].filter((l): l is string[] => !!l).map((l) => new Set(l));
  return (name) => {
    if (!byName.has(name)) return undefined;
    const reason = frozen.denied.get(name) ?? current.denied.get(name);
    if (reason) return reason;
    if (lists.some((l) => !l.has(name))) return `not among profile "${s.profile}"'s tools (POLICY.profiles.${s.profile}.tools)`;
    return undefined;
  };
}

/** Whether a call of `name` needs a person's yes first, under the rules now; undefined: it does not. */
export type ApprovalGate = (name: string) => ApprovalNeed | undefined;

export function approvalGate(byName: ReadonlyMap<string, CatalogTool>, now: LiveRules): ApprovalGate {
  return (name) => {
    const tool = byName.get(name);
    return tool && approvalNeed(now.approval, tool);
  };
}

/** Why a server's resources and prompts may not be served to the session; undefined: they may. */
export type ServerGate = (server: string) => string | undefined;

/**
 * Which servers serve their resources and prompts (R2-L7). They are the server's data beside its
 * tools, and a rule that denies one tool cannot say which of them belong to it, so: a server
 * serves when the gate refuses none of its tools, under the frozen rules and the rules now. A
 * server with a refused tool serves only where the rules that refuse it name the server in
 * `allow` (`server:<glob>`), and only if some tool of it is allowed; a profile's whitelist that
 * leaves out any of its tools closes it. A server with no tool in the catalog serves nothing.
 */
export function serverGate(tools: readonly CatalogTool[], s: GatedSession, now: LiveRules): ServerGate {
  const layers: Array<[AccessView, AccessRules | undefined]> = [
    [sessionAccess(tools, s), s.access],
    [accessView(tools, now.access), now.access],
  ];
  const lists = [s.whitelist, now.whitelists[s.profile]].filter((l): l is string[] => !!l).map((l) => new Set(l));
  return (server) => {
    const own = tools.filter((t) => t.server === server);
    if (!own.length) return `server ${server} has no tool in this session's catalog`;
    for (const [view, rules] of layers) {
      const refused = own.find((t) => view.denied.has(t.name));
      if (!refused) continue;
      const reason = view.denied.get(refused.name) ?? "denied";
      if (own.every((t) => view.denied.has(t.name))) return `every tool of server ${server} is denied (${reason})`;
      if (!allowsServer(rules, server))
        return `tool ${refused.name} of server ${server} is denied (${reason}) and no server: pattern in allow names ${server}`;
    }
    if (lists.some((l) => own.some((t) => !l.has(t.name))))
      return `profile "${s.profile}" runs only its own tools (POLICY.profiles.${s.profile}.tools)`;
    return undefined;
  };
}

/** A denial: the name and why (audited as a `denial` row). */
export type Denial = { name: string; reason: string };

/**
 * Names to load, sorted by the gate: `allowed` in their order, `refused` (what the gate refuses
 * now), and `denied`, the denials to audit: those the caller already found (`asked`) and the
 * refused ones among them only once.
 */
export function gateLoads(gate: Gate, names: readonly string[], asked: readonly Denial[]) {
  const refused: Denial[] = names.flatMap((name) => {
    const reason = gate(name);
    return reason ? [{ name, reason }] : [];
  });
  const out = new Set(refused.map((d) => d.name));
  const known = new Set(asked.map((d) => d.name));
  return {
    allowed: names.filter((n) => !out.has(n)),
    refused,
    denied: [...asked, ...refused.filter((d) => !known.has(d.name))],
  };
}

/** The catalog as a tenant may see it now (the catalog routes): the tools its live rules allow. */
export function visibleTools(tools: readonly CatalogTool[], now: LiveRules): readonly CatalogTool[] {
  const { candidates } = accessView(tools, now.access);
  return candidates ? tools.filter((t) => candidates.has(t.name)) : tools;
}
