// The approvals' wire (POLICY.approval, docs/edge-execution.md): an approval as GET /v1/approvals,
// POST /v1/approvals/:id and the page show it, the REST decision's body, and the approval page's
// form. One schema each, shared by the routes and the page.

import { z } from "zod";
import { check } from "./check.ts";

export const approval = z
  .object({
    id: z.string(),
    session: z.string(),
    tool: z.string(),
    server: z.string(),
    /** the call's arguments, as JSON, cut to 300 characters */
    arguments: z.string(),
    /** the POLICY.approval rule that asked */
    rule: z.string(),
    /** how long a yes lasts: call, session or <N>m */
    remember: z.string(),
    status: z.enum(["pending", "approved", "denied", "expired"]),
    createdAt: z.string(),
    expiresAt: z.string(),
    decidedAt: z.string().nullable(),
    /** the key id, or the MCP client, that decided */
    decidedBy: z.string().nullable(),
    /** rest, link, elicitation, responses */
    how: z.string().nullable(),
    reason: z.string().nullable(),
    /** the approval page (needs the principal's key) */
    link: z.string(),
  })
  .strict();
export type Approval = z.infer<typeof approval>;

/** GET /v1/approvals: the caller's open requests, newest first. */
export const approvalsAnswer = z.object({ approvals: z.array(approval) }).strict();
export type ApprovalsAnswer = z.infer<typeof approvalsAnswer>;

/** POST /v1/approvals/:id */
const decisionBody = z.object({ approve: z.boolean(), reason: z.string().max(500).optional() }).strict();
export type DecisionBody = z.infer<typeof decisionBody>;
export const parseDecisionBody = (body: unknown): DecisionBody => check(decisionBody, body);

/** POST /approve/<link>: the page's form: the key proving the principal, the CSRF token, the button pressed. */
const approvalForm = z
  .object({
    key: z.string().min(1).max(512),
    csrf: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    decision: z.enum(["approve", "deny"]),
    reason: z.string().max(500).optional(),
  })
  .strict();
export type ApprovalForm = z.infer<typeof approvalForm>;
export const parseApprovalForm = (body: Uint8Array): ApprovalForm =>
  check(approvalForm, Object.fromEntries(new URLSearchParams(new TextDecoder().decode(body))));
