// Quotas per tenant, from the QUOTAS var (wrangler.toml [vars.QUOTAS]): how many requests an API
// key may make a minute (each JSON-RPC message of an /mcp batch is one), how many calls to upstream
// MCP servers its requests may cause a minute, and sessions it may open an hour (counted in the
// key's quota object: session/quota-role.ts), how many stored responses a session keeps (the oldest go first), and
// how many days audit rows and search events are kept (the session's alarm and the Worker's cron
// prune them). `tenants.<tenant>` overrides any of them for one tenant. 0 means no limit. The
// defaults are far above normal use and every bench (RESULTS.md section 4 peaks at about 8,400
// requests and 1,900 sessions a minute on one key): they stop floods, not work.

import { z } from "zod";
import { parseVar } from "./config/check.ts";

const limit = z.number().int().min(0);

const QuotaValues = z
  .object({
    requestsPerKeyPerMinute: limit,
    upstreamCallsPerKeyPerMinute: limit,
    sessionsPerKeyPerHour: limit,
    responsesPerSession: limit,
    auditRetentionDays: limit,
  })
  .strict();
export type TenantQuotas = z.infer<typeof QuotaValues>;

const QuotasVar = QuotaValues.partial()
  .extend({ tenants: z.record(z.string(), QuotaValues.partial()).optional() })
  .strict();

export const DEFAULT_QUOTAS: TenantQuotas = {
  requestsPerKeyPerMinute: 60_000,
  upstreamCallsPerKeyPerMinute: 60_000,
  sessionsPerKeyPerHour: 10_000,
  responsesPerSession: 1000,
  auditRetentionDays: 90,
};

export interface Quotas {
  /** the quotas that hold for `tenant`: its overrides over the deployment's, over the defaults */
  forTenant(tenant: string): TenantQuotas;
  /** the tenants with overrides of their own (the cron prunes each by its own retention) */
  readonly overridden: readonly string[];
}

/** QUOTAS as configured (absent: the defaults); a bad value or unknown key is a config_invalid error naming it (config/check.ts). */
export function parseQuotas(raw: unknown): Quotas {
  const { tenants = {}, ...base } = parseVar("QUOTAS", QuotasVar, raw, " (integers >= 0; 0 means no limit)");
  const deployment = { ...DEFAULT_QUOTAS, ...base };
  const cache = new Map<string, TenantQuotas>();
  return {
    overridden: Object.keys(tenants),
    forTenant(tenant) {
      let q = cache.get(tenant);
      if (!q) cache.set(tenant, (q = { ...deployment, ...(Object.hasOwn(tenants, tenant) ? tenants[tenant] : {}) }));
      return q;
    },
  };
}

/** The retention cutoff (ms since 1970) for `days` at `now`; null when rows are kept forever. */
export function retentionCutoff(days: number, now = Date.now()): number | null {
  return days > 0 ? now - days * 86_400_000 : null;
}
