// The Worker's side of quotas (worker/quotas.ts): each request (each JSON-RPC message of an /mcp
// batch), each call to an upstream MCP server and each new session takes a unit from its API key's
// window. The units come from the key's quota object (SessionDO in its quota role, quota-role.ts)
// in leases: an isolate takes a block of up to 1% of the limit (at most 100, at least 1) in one RPC
// and spends it locally until it runs out or the window ends, so a request costs an RPC only once
// per block (RESULTS.md section 11), and no window ever admits more than its limit. A unit leased
// and not spent is lost with its window: a key spread over many isolates (session objects count
// upstream calls in theirs) can be refused a little before its count reaches the limit, never
// after. Small limits (under 200) lease one unit at a time: exact. Several units at once (a batch)
// are taken whole or not at all. A refusal is a RateLimited error (429 with retry-after;
// worker/index.ts renders it in the route's shape), and once the window is used up the isolate
// remembers it until the window ends, asking the object nothing meanwhile. A limit of 0 makes no
// call at all.

import { RateLimited } from "../core/errors.ts";
import type { RouteContext } from "../http.ts";
import type { TenantQuotas } from "../quotas.ts";
import { settings } from "../settings.ts";
import type { QuotaKind } from "./quota-role.ts";

/** What counting needs of a request: the bindings, the key's tenant and the key's id (auth.ts). */
export type QuotaContext = Pick<RouteContext, "env" | "tenant" | "key">;

const WINDOWS: Record<QuotaKind, { ms: number; what: string; per: string; field: keyof TenantQuotas }> = {
  requests: { ms: 60_000, what: "requests", per: "a minute", field: "requestsPerKeyPerMinute" },
  upstream: { ms: 60_000, what: "calls to upstream MCP servers", per: "a minute", field: "upstreamCallsPerKeyPerMinute" },
  sessions: { ms: 3_600_000, what: "sessions", per: "an hour", field: "sessionsPerKeyPerHour" },
};

/** Units this isolate holds for a key and kind until `ends`; `refused`: the window is used up. */
type Lease = { ends: number; left: number; refused: boolean };

// per isolate; keys are authenticated keys only, so callers cannot grow it
const leases = new Map<string, Lease>();
const MAX_LEASES = 10_000;

/** The block an isolate takes at once: 1% of the limit, 1 to 100 units. */
export const leaseSize = (limit: number): number => Math.max(1, Math.min(100, Math.floor(limit / 100)));

/**
 * Take `units` of `kind` (all or none) from the caller's key quota; RateLimited when the window has
 * not that many left (`why`: what the refusal adds, for more than one unit).
 */
export async function admit(c: QuotaContext, kind: QuotaKind, units = 1, why = "", now = Date.now()): Promise<void> {
  const w = WINDOWS[kind];
  const limit = settings(c.env).quotas.forTenant(c.tenant)[w.field];
  if (!limit || !c.key || units < 1) return;
  const id = `${c.tenant}/${c.key}`;
  const slot = `${id}\u0000${kind}`;
  let lease = leases.get(slot);
  if (lease && lease.ends <= now) lease = undefined;
  if (!lease || (lease.left < units && !lease.refused)) {
    const need = units - (lease?.left ?? 0);
    const quota = c.env.SESSIONS.getByName(`quota:${id}`).quota();
    const answer = await quota.take(kind, limit, w.ms, Math.max(need, leaseSize(limit)), now, need);
    // nothing granted and nothing left: remembered until the window ends (a batch too large for what is left is not)
    const usedUp = !answer.granted && answer.used >= limit;
    // a concurrent request of this isolate may have taken a block meanwhile: the two add up
    const current = leases.get(slot);
    if (current && current.ends === answer.ends && current.left > 0) (lease = current).left += answer.granted;
    else {
      if (leases.size >= MAX_LEASES) leases.clear();
      leases.set(slot, (lease = { ends: answer.ends, left: answer.granted, refused: usedUp }));
    }
  }
  if (lease.left >= units) return void (lease.left -= units);
  const seconds = (lease.ends - now) / 1000;
  const more = why ? `: ${why}${units > limit ? ", more than the whole quota" : ""}` : "";
  throw new RateLimited(
    `this API key reached its quota of ${limit} ${w.what} ${w.per} (QUOTAS.${w.field})${more}; retry in ${Math.ceil(seconds)} s`,
    seconds,
  );
}
