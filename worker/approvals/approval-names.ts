// Names of a principal's approvals: its Durable Object (`approvals:<tenant>/<user>`, a role of
// SessionDO beside sessions, principals and quotas; the user may be empty: a tenant's key asks for
// its own calls), an approval's id (`ap_` and 128 random bits) and its link
// (`/approve/<principal>.<id>`, the principal as in a connect link: principal-names.ts).

import { principalFromToken, principalToken, type Principal } from "../accounts/principal-names.ts";
import { TENANT_RE, USER_RE } from "../auth.ts";

export const APPROVALS_PREFIX = "approvals:";
export const APPROVAL_ID_RE = /^ap_[A-Za-z0-9_-]{22}$/;
export const APPROVE_PATH = "/approve/";

export function approvalsName(p: Principal): string {
  return `${APPROVALS_PREFIX}${p.tenant}/${p.user}`;
}

/** The principal an approvals object's name holds; null for any other object. */
export function principalOfApprovals(name: string | undefined): Principal | null {
  if (!name?.startsWith(APPROVALS_PREFIX)) return null;
  const text = name.slice(APPROVALS_PREFIX.length);
  const at = text.indexOf("/");
  const tenant = text.slice(0, at);
  const user = text.slice(at + 1);
  return at > 0 && TENANT_RE.test(tenant) && (user === "" || USER_RE.test(user)) ? { tenant, user } : null;
}

export function newApprovalId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `ap_${btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "")}`;
}

export function approvalLink(origin: string, p: Principal, id: string): string {
  return `${origin}${APPROVE_PATH}${principalToken(p)}.${id}`;
}

/** `<principal>.<id>` (a link's last segment) split and checked; no storage is read. */
export function splitApprovalLink(text: string): { principal: Principal; id: string } | null {
  const m = /^([A-Za-z0-9_-]{1,300})\.(ap_[A-Za-z0-9_-]{22})$/.exec(text);
  const principal = m && principalFromToken(m[1]!);
  return principal ? { principal, id: m![2]! } : null;
}
