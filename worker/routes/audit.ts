// The audit trail. GET /v1/audit: the caller's tenant's events across sessions, from D1. GET
// /v1/sessions/:id/audit: one session's events, from the session's own storage (complete even
// while delivery to D1 is behind). Both answer `{ events, cursor }`, newest first; filters
// `session`, `tool`, `outcome`, `type`, `since`, `limit`; pass `cursor` for the next page. A key
// that names a user sees only that user's events; a tenant's key, all of the tenant's. D1
// failing is a 503 to retry (the sessions keep their rows meanwhile), not an internal error.

import { parseAuditQuery } from "../core/audit.ts";
import { ToolsearchError } from "../core/errors.ts";
import { queryTenantAudit } from "../session/audit-store.ts";
import { json, param, route, type RouteContext } from "../http.ts";
import { SessionClient } from "../session/client.ts";
import type { AuditPageAnswer } from "../wire/answers.ts";

async function tenantAudit(c: RouteContext): Promise<Response> {
  const q = { ...parseAuditQuery(c.url.searchParams), ...(c.user ? { user: c.user } : {}) };
  try {
    return json((await queryTenantAudit(c.env.AUDIT, c.tenant, q)) satisfies AuditPageAnswer);
  } catch (e) {
    console.warn(`GET /v1/audit: D1 failed: ${(e as Error)?.message ?? e}`);
    throw new ToolsearchError(
      "unavailable",
      "the audit database is unavailable; retry later (each session's own events are at /v1/sessions/:id/audit)",
    );
  }
}

async function sessionAudit(c: RouteContext): Promise<Response> {
  const q = parseAuditQuery(c.url.searchParams);
  return json((await SessionClient.of(c, param(c, "id")).audit({ ...q, session: undefined })) satisfies AuditPageAnswer);
}

export const auditRoutes = [route("GET", "/v1/audit", tenantAudit), route("GET", "/v1/sessions/:id/audit", sessionAudit)];
