// Approvals (POLICY.approval, docs/edge-execution.md). REST, with the caller's key: GET
// /v1/approvals lists the principal's open requests; POST /v1/approvals/:id `{approve, reason}`
// decides one (404 another principal's or a forged id, 409 decided already, 410 expired). In a
// browser, an approval link (`/approve/<principal>.<id>`, from a tool result) opens a page with the
// call and Approve / Deny (approve-page.ts; it reads the principal's own approvals object only);
// its POST decides, under the connect page's guards: same origin, the page's CSRF cookie, and a
// key that acts as the link's principal. Either way approvals/decide.ts audits the decision.

import { splitApprovalLink, APPROVAL_ID_RE } from "../approvals/approval-names.ts";
import { ApprovalsClient } from "../approvals/approvals-client.ts";
import { decideApproval } from "../approvals/decide.ts";
import { randomToken } from "../accounts/principal-names.ts";
import { keyActingAs } from "../auth.ts";
import { ToolsearchError } from "../core/errors.ts";
import { json, param, readBytes, readJson, route, type RouteContext } from "../http.ts";
import { admit } from "../session/quota-client.ts";
import { settings } from "../settings.ts";
import { parseApprovalForm, parseDecisionBody, type Approval, type ApprovalsAnswer } from "../wire/approvals.ts";
import { approvedPage, approvePage, approvePageError } from "./approve-page.ts";
import { pageForm, setCookie } from "./form-guard.ts";

const CSRF_COOKIE = "toolsearch_approve_csrf";
const UNKNOWN = "this approval link is not known; ask your agent to call the tool again for a new one";

async function list(c: RouteContext): Promise<Response> {
  const approvals = await ApprovalsClient.of(c.env, c).open(c.url.origin);
  return json({ approvals } satisfies ApprovalsAnswer);
}

async function decide(c: RouteContext): Promise<Response> {
  const id = param(c, "id");
  if (!APPROVAL_ID_RE.test(id)) throw new ToolsearchError("not_found", `approval ${id.slice(0, 40)} is not known`);
  const body = parseDecisionBody(await readJson(c.request));
  const decider = { env: c.env, principal: { tenant: c.tenant, user: c.user }, key: c.key, origin: c.url.origin };
  const a = await decideApproval(decider, id, { approve: body.approve, reason: body.reason ?? null, how: "rest", by: `key ${c.key}` });
  return json(a satisfies Approval);
}

function linkOf(c: RouteContext) {
  const link = splitApprovalLink(param(c, "link"));
  if (!link) throw new ToolsearchError("not_found", UNKNOWN);
  return link;
}

async function open(c: RouteContext): Promise<Response> {
  const link = linkOf(c);
  const a = await ApprovalsClient.of(c.env, link.principal).get(link.id, c.url.origin);
  if (!a) throw new ToolsearchError("not_found", UNKNOWN);
  const csrf = randomToken();
  const ttlS = settings(c.env).approvalTtlMs / 1000;
  return approvePage(a, c.url.host, csrf, { "set-cookie": setCookie(c, "/approve", CSRF_COOKIE, csrf, ttlS, "Strict") });
}

async function submit(c: RouteContext): Promise<Response> {
  const link = linkOf(c);
  const { form, caller } = await pageForm(c, { cookie: CSRF_COOKIE, parse: parseApprovalForm, principal: link.principal, userless: true });
  const decider = { env: c.env, principal: link.principal, key: caller.key, origin: c.url.origin };
  const reason = form.reason?.trim() || null;
  const a = await decideApproval(decider, link.id, { approve: form.decision === "approve", reason, how: "link", by: `key ${caller.key}` });
  return approvedPage(a);
}

export const approvalRoutes = [
  route("GET", "/v1/approvals", list),
  route("POST", "/v1/approvals/:id", decide),
  route("GET", "/approve/:link", open, approvePageError),
  // rendersAuth: a wrong key is a page saying so, not the API's JSON 401
  route("POST", "/approve/:link", submit, approvePageError, true),
];
