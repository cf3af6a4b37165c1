// Audit retention in D1 (QUOTAS.auditRetentionDays, worker/quotas.ts): the Worker's daily cron
// (wrangler.toml [triggers]) deletes each tenant's `audit_events` rows older than its retention.
// Event ids begin with their time in fixed-width hex (core/audit.ts eventId), so "older than" is
// an id range the primary key and the (tenant, id) index answer. The session objects prune their
// own copies in their alarms (session-do.ts prune); this reaches the rows of sessions long gone.

import { retentionCutoff, type Quotas } from "./quotas.ts";

/** The smallest event id at or after `at` (ms since 1970): every id below it is older. */
export function idAt(at: number): string {
  return `ev_${Math.max(0, Math.floor(at)).toString(16).padStart(12, "0")}`;
}

/** Delete audit rows past retention: tenants with overrides by their own, every other by the deployment's. Rows deleted. */
export async function pruneAuditEvents(db: D1Database, quotas: Quotas, now = Date.now()): Promise<number> {
  const statements: D1PreparedStatement[] = [];
  for (const tenant of quotas.overridden) {
    const cutoff = retentionCutoff(quotas.forTenant(tenant).auditRetentionDays, now);
    if (cutoff !== null) statements.push(db.prepare("DELETE FROM audit_events WHERE tenant = ? AND id < ?").bind(tenant, idAt(cutoff)));
  }
  // a tenant with no override of its own: "" never names one (auth.ts TENANT_RE), so this is the deployment's value
  const cutoff = retentionCutoff(quotas.forTenant("").auditRetentionDays, now);
  if (cutoff !== null)
    statements.push(
      db
        .prepare("DELETE FROM audit_events WHERE id < ? AND tenant NOT IN (SELECT value FROM json_each(?))")
        .bind(idAt(cutoff), JSON.stringify(quotas.overridden)),
    );
  if (!statements.length) return 0;
  const results = await db.batch(statements);
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}
