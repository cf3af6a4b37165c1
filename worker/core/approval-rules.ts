// Which calls need a person's yes first: POLICY.approval, pure. The access rules' shape and
// pattern language (access.ts): a `default` layer and `tenants.<tenant>` overrides, each with
// `ask` (patterns: globs over exposed names, `server:<glob>`, or an MCP annotation hint such as
// `destructiveHint`, which matches the tools whose hint is true, with MCP's defaults for a hint
// left out) and `remember`, how long a yes lasts: "call" (that call, those arguments, once),
// "session" (the tool, for the rest of the session) or "<N>m" (the tool, N minutes, in any
// session of the principal). The rules are read as deployed now: a new rule holds in live sessions
// at once. The one gate (gate.ts) asks `approvalFor`; a config error names the key.

import { hint, matching } from "./access.ts";
import type { CatalogTool } from "./catalog.ts";
import { ToolsearchError } from "./errors.ts";

export type Remember = { kind: "call" } | { kind: "session" } | { kind: "minutes"; minutes: number };

export interface ApprovalLayer {
  ask?: string[];
  remember?: string;
}

/** POLICY.approval in wrangler.toml */
export interface ApprovalConfig {
  default?: ApprovalLayer;
  tenants?: Record<string, ApprovalLayer>;
}

/** One tenant's approval rules (small: they cross RPC in LiveRules). */
export interface ApprovalRules {
  ask: string[];
  remember: string;
  /** "default" or "tenant <name>", for reasons */
  source: string;
}

/** What the gate says of a call that needs a yes: the rule that asks, and how long a yes lasts. */
export interface ApprovalNeed {
  rule: string;
  remember: Remember;
}

const HINTS = new Set(["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]);
const LAYER_KEYS = ["ask", "remember"];
export const REMEMBER_RE = /^(call|session|([1-9]\d{0,4})m)$/;

const bad = (m: string) => new ToolsearchError("internal", `POLICY.approval: ${m}`);

function checkLayer(layer: unknown, where: string): ApprovalLayer {
  if (!layer || typeof layer !== "object" || Array.isArray(layer)) throw bad(`${where} must be a table`);
  for (const [k, v] of Object.entries(layer)) {
    if (!LAYER_KEYS.includes(k)) throw bad(`${where}.${k} is not a rule (ask, remember)`);
    if (k === "ask" && !(Array.isArray(v) && v.every((p) => typeof p === "string" && p.length > 0)))
      throw bad(`${where}.ask must be a list of patterns`);
    if (k === "remember" && !(typeof v === "string" && REMEMBER_RE.test(v)))
      throw bad(`${where}.remember must be "call", "session" or minutes such as "15m", got ${JSON.stringify(v)}`);
  }
  return layer as ApprovalLayer;
}

/** Check POLICY.approval and pick the tenant's rules: its own layer, else `default`, else none. */
export function approvalFor(config: ApprovalConfig | undefined, tenant: string): ApprovalRules {
  const c = config ?? {};
  if (typeof c !== "object" || Array.isArray(c)) throw bad("must be a table");
  for (const k of Object.keys(c)) if (k !== "default" && k !== "tenants") throw bad(`${k} is not a section (default, tenants)`);
  const own = c.tenants?.[tenant];
  const layer = own ? checkLayer(own, `tenants.${tenant}`) : c.default ? checkLayer(c.default, "default") : {};
  return { ask: [...(layer.ask ?? [])], remember: layer.remember ?? "call", source: own ? `tenant ${tenant}` : "default" };
}

export function parseRemember(text: string): Remember {
  const m = REMEMBER_RE.exec(text);
  if (!m || m[1] === "call") return { kind: "call" };
  if (m[1] === "session") return { kind: "session" };
  return { kind: "minutes", minutes: Number(m[2]) };
}

/** Whether a call of `tool` needs a yes under `rules`, and which rule says so. */
export function approvalNeed(
  rules: ApprovalRules | undefined,
  tool: Pick<CatalogTool, "name" | "server" | "annotations">,
): ApprovalNeed | undefined {
  if (!rules?.ask.length) return undefined;
  const hinted = rules.ask.find((p) => HINTS.has(p) && hint(tool, p));
  const rule =
    hinted ??
    matching(
      tool,
      rules.ask.filter((p) => !HINTS.has(p)),
    );
  if (!rule) return undefined;
  return { rule: `${rules.source} (ask: ${rule})`, remember: parseRemember(rules.remember) };
}

/** A short, one-line summary of a call's arguments for the person asked: canonical JSON, cut. */
export function argumentSummary(args: unknown, max = 300): string {
  let text: string;
  try {
    text = JSON.stringify(args ?? {}) ?? "{}";
  } catch {
    text = "(arguments that cannot be shown)";
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
