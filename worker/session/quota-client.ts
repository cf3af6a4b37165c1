// The Worker's side of quotas (worker/quotas.ts): before a request runs, and before a session is
// created, one RPC to the key's quota object (SessionDO in its quota role, quota-role.ts) takes a
// unit from the window. A refusal is a RateLimited error: the one handler (worker/index.ts)
// answers it as a 429 with `retry-after`, in the shape of the route's protocol. A limit of 0
// makes no call at all.

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

/** Take one `kind` from the caller's key quota; RateLimited when it is used up. */
export async function admit(c: QuotaContext, kind: QuotaKind): Promise<void> {
  const w = WINDOWS[kind];
  const limit = settings(c.env).quotas.forTenant(c.tenant)[w.field];
  if (!limit || !c.key) return;
  const answer = await c.env.SESSIONS.getByName(`quota:${c.tenant}/${c.key}`).quota().take(kind, limit, w.ms);
  if (!answer.ok)
    throw new RateLimited(
      `this API key reached its quota of ${limit} ${kind} ${w.per} (QUOTAS.${w.field}); retry in ${Math.ceil(answer.retryAfter)} s`,
      answer.retryAfter,
    );
}
