// The audit trail. GET /v1/audit: the caller's tenant's events across sessions, from D1. GET
// /v1/sessions/:id/audit: one session's events, from the session's own storage (complete even
// while delivery to D1 is behind). Both answer `{ events, cursor }`, newest first; filters
// `session`, `tool`, `outcome`, `type`, `since`, `limit`; pass `cursor` for the next page.

import { parseAuditQuery } from "../core/audit.ts";
import { queryTenantAudit } from "../audit-store.ts";
import { json, route, type RouteContext } from "../http.ts";
import { notFound, sessionStub } from "../sessions.ts";

async function tenantAudit(c: RouteContext): Promise<Response> {
  const q = parseAuditQuery(c.url.searchParams);
  return json(await queryTenantAudit(c.env.AUDIT, c.tenant, q));
}

async function sessionAudit(c: RouteContext): Promise<Response> {
  const id = c.params.id!;
  const q = parseAuditQuery(c.url.searchParams);
  const page = await sessionStub(c, id).audit({ ...q, session: undefined });
  if (!page) throw notFound(id);
  return json(page);
}

export const auditRoutes = [route("GET", "/v1/audit", tenantAudit), route("GET", "/v1/sessions/:id/audit", sessionAudit)];
