// Deployment settings from the Worker's vars (wrangler.toml): the pinned catalog, session TTL and
// the defer policy. Parsed once per isolate; a bad value is a clear 500-class config error.

import { ToolsearchError } from "./core/errors.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "./core/policy.ts";

export interface Settings {
  catalogFile: string;
  ttlMs: number;
  policy: PolicyConfig;
}

let cached: { env: Env; settings: Settings } | undefined;

export function settings(env: Env): Settings {
  if (cached?.env === env) return cached.settings;
  const ttl = Number(env.SESSION_TTL_SECONDS ?? 604800);
  if (!Number.isFinite(ttl) || ttl <= 0) throw new ToolsearchError("internal", `SESSION_TTL_SECONDS must be a positive number, got "${env.SESSION_TTL_SECONDS}"`);
  const p = (env.POLICY ?? {}) as Partial<PolicyConfig>;
  const policy: PolicyConfig = {
    threshold: p.threshold ?? DEFAULT_POLICY.threshold,
    unknownModel: { ...DEFAULT_POLICY.unknownModel, ...p.unknownModel },
    models: { ...p.models },
    profiles: { default: {}, ...p.profiles },
  };
  const s = { catalogFile: String(env.CATALOG), ttlMs: ttl * 1000, policy };
  cached = { env, settings: s };
  return s;
}
