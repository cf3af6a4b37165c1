// Asking for a yes in MCP's own shape (POLICY.approval), whatever the era: the form-mode
// `elicitation/create` a call sends when its tool needs a person's approval, and what the client's
// answer means. Accept (the form: an optional reason, nothing else) approves, decline denies, and
// either decision is taken through approvals/decide.ts (audited `elicitation`, by the client); then
// the same call runs again through the execution path, which now finds the yes (or tells the
// denial). Cancel decides nothing, and neither does an answer that does not match the form: the
// call is a tool error saying so, with the approval's link, which stays open.

import { decideApproval } from "../approvals/decide.ts";
import type { RouteContext } from "../http.ts";
import { approvalText } from "../session/approval-step.ts";
import type { ApprovalAsked, CallOutcome } from "../session/call-end.ts";
import type { CallToolResult } from "../core/call-result.ts";
import type { GatewayPort } from "./tools.ts";
import { approvalOfId, wake } from "./elicit-waiters.ts";

export const APPROVAL_FORM = {
  type: "object",
  properties: { reason: { type: "string", title: "Reason (optional)", maxLength: 500 } },
} as const;

export function elicitParams(a: ApprovalAsked) {
  return {
    mode: "form",
    message:
      `Approve this call? ${a.tool} on server ${a.server}, with ${a.arguments}. ` +
      `Accept to run it, decline to refuse it (it will not run).`,
    requestedSchema: APPROVAL_FORM,
  };
}

/** What an answer to the form means; `by` names who answered in the audit trail. */
export type ElicitAnswer =
  { kind: "decide"; approve: boolean; reason: string | null } | { kind: "cancel" } | { kind: "mismatch"; why: string };

/** Read an ElicitResult (the bare result, as either era carries it). */
export function readAnswer(result: unknown): ElicitAnswer {
  const r = (result ?? {}) as { action?: unknown; content?: unknown };
  if (r.action === "cancel") return { kind: "cancel" };
  if (r.action === "decline") return { kind: "decide", approve: false, reason: "declined in the client" };
  if (r.action !== "accept") return { kind: "mismatch", why: `action must be accept, decline or cancel` };
  const content = (r.content ?? {}) as Record<string, unknown>;
  if (typeof content !== "object" || Array.isArray(content)) return { kind: "mismatch", why: "content must be an object" };
  const extra = Object.keys(content).filter((k) => k !== "reason");
  if (extra.length) return { kind: "mismatch", why: `the form has no field ${extra[0]!.slice(0, 40)}` };
  const reason = content.reason;
  if (reason !== undefined && (typeof reason !== "string" || reason.length > 500))
    return { kind: "mismatch", why: "reason must be text of at most 500 characters" };
  return { kind: "decide", approve: true, reason: (reason as string | undefined)?.trim() || null };
}

const toolError = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }], isError: true });

/** The call's result when the answer decided nothing: cancelled, or not the form's shape. */
export function undecided(a: ApprovalAsked, answer: Exclude<ElicitAnswer, { kind: "decide" }>): CallOutcome {
  const why =
    answer.kind === "cancel"
      ? `the person cancelled the approval of ${a.tool}; it did not run.`
      : `the answer to the approval of ${a.tool} did not match its form (${answer.why}); it did not run.`;
  return { ok: true, outcome: "approval_required", approval: a, result: toolError(`${why} ${approvalText(a)}`) };
}

/** How a surface asks: the answer, `decided` (seen elsewhere: the link, another isolate), or `failed` (no answer: the link stands). */
export type Ask = (a: ApprovalAsked) => Promise<ElicitAnswer | { kind: "decided" } | { kind: "failed" }>;

/** The port's run, asking for a yes where a call needs one, then running the same call again. */
export function askingRun(run: GatewayPort["run"], ask: Ask): GatewayPort["run"] {
  return async (name, args, context) => {
    const first = await run(name, args, context);
    const a = first.ok ? first.approval : undefined;
    if (!a || a.status !== "pending") return first;
    const answer = await ask(a);
    if (answer.kind === "failed") return first;
    if (answer.kind === "cancel" || answer.kind === "mismatch") return undecided(a, answer);
    // decided (where the answer arrived, or elsewhere): the same call again finds the yes, or reports the no once
    return run(name, args, context);
  };
}

/** A JSON-RPC response to one of our elicitations: its approval's id, else null. */
export function elicitationAnswer(message: unknown): string | null {
  const m = (message ?? {}) as Record<string, unknown>;
  return m.method === undefined && ("result" in m || "error" in m) ? approvalOfId(m.id) : null;
}

/** Take the person's answer: a decision is made for the caller's principal (audited `elicitation`, by the client). */
export async function decideFromAnswer(c: RouteContext, approval: string, answer: ElicitAnswer, client: string | undefined): Promise<void> {
  if (answer.kind !== "decide") return;
  const decider = { env: c.env, principal: { tenant: c.tenant, user: c.user }, key: c.key, origin: c.url.origin };
  const by = `MCP client ${client ?? "(unnamed)"}`;
  // decided already (the link, an earlier answer): the call learns it when it runs again
  await decideApproval(decider, approval, { approve: answer.approve, reason: answer.reason, how: "elicitation", by }).catch(() => {});
}

/**
 * A client's answers (a POST of responses only, 2025 era): each decides its approval for the
 * session's principal (an approval of another principal is not known to it), then wakes the
 * waiting call. An error answer (the client cannot ask after all) decides nothing.
 */
export async function takeAnswers(c: RouteContext, session: { id: string; mcp: { client?: string } }, messages: unknown[]): Promise<void> {
  for (const message of messages) {
    const m = message as { id: string; result?: unknown };
    if (!("result" in m)) {
      wake(m.id, session.id, { kind: "failed" });
      continue;
    }
    const answer = readAnswer(m.result);
    await decideFromAnswer(c, elicitationAnswer(message)!, answer, session.mcp.client);
    wake(m.id, session.id, answer);
  }
}
