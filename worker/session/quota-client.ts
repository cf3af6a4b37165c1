// The Worker's side of quotas (worker/quotas.ts): each request, and each new session, takes a unit
// from its API key's window. The units come from the key's quota object (SessionDO in its quota
// role, quota-role.ts) in leases: an isolate takes a block of up to 1% of the limit (at most 100,
// at least 1) in one RPC and spends it locally until it runs out or the window ends, so a request
// costs an RPC only once per block (RESULTS.md section 11), and no window ever admits more than
// its limit. A unit leased and not spent is lost with its window: a key spread over many isolates
// can be refused a little before its count reaches the limit, never after. Small limits (under
// 200) lease one unit at a time: exact. A refusal is a RateLimited error (429 with retry-after;
// worker/index.ts renders it in the route's shape), and the isolate remembers it until the window
// ends, asking the object nothing meanwhile. A limit of 0 makes no call at all.

import { RateLimited } from "../core/errors.ts";
import type { RouteContext } from "../http.ts";
import { settings } from "../settings.ts";
import type { QuotaKind } from "./quota-role.ts";

/** What counting needs of a request: the bindings, the key's tenant and the key's id (auth.ts). */
export type QuotaContext = Pick<RouteContext, "env" | "tenant" | "key">;

const WINDOWS: Record<QuotaKind, { ms: number; per: string; field: "requestsPerKeyPerMinute" | "sessionsPerKeyPerHour" }> = {
  requests: { ms: 60_000, per: "a minute", field: "requestsPerKeyPerMinute" },
  sessions: { ms: 3_600_000, per: "an hour", field: "sessionsPerKeyPerHour" },
};

/** Units this isolate holds for a key and kind until `ends`; `left` 0 with `refused`: the window is used up. */
type Lease = { ends: number; left: number; refused: boolean };

// per isolate; keys are authenticated keys only, so callers cannot grow it
const leases = new Map<string, Lease>();
const MAX_LEASES = 10_000;

/** The block an isolate takes at once: 1% of the limit, 1 to 100 units. */
export const leaseSize = (limit: number): number => Math.max(1, Math.min(100, Math.floor(limit / 100)));

/** Take one `kind` from the caller's key quota; RateLimited when the window is used up. */
export async function admit(c: QuotaContext, kind: QuotaKind, now = Date.now()): Promise<void> {
  const w = WINDOWS[kind];
  const limit = settings(c.env).quotas.forTenant(c.tenant)[w.field];
  if (!limit || !c.key) return;
  const id = `${c.tenant}/${c.key}`;
  const slot = `${id}\u0000${kind}`;
  let lease = leases.get(slot);
  if (!lease || lease.ends <= now || (!lease.left && !lease.refused)) {
    const answer = await c.env.SESSIONS.getByName(`quota:${id}`).quota().take(kind, limit, w.ms, leaseSize(limit), now);
    // a concurrent request of this isolate may have taken a block meanwhile: the two add up
    const current = leases.get(slot);
    if (current && current.ends === answer.ends && current.left > 0) (lease = current).left += answer.granted;
    else {
      if (leases.size >= MAX_LEASES) leases.clear();
      leases.set(slot, (lease = { ends: answer.ends, left: answer.granted, refused: !answer.granted }));
    }
  }
  if (lease.left > 0) return void lease.left--;
  const seconds = (lease.ends - now) / 1000;
  throw new RateLimited(
    `this API key reached its quota of ${limit} ${kind} ${w.per} (QUOTAS.${w.field}); retry in ${Math.ceil(seconds)} s`,
    seconds,
  );
}
