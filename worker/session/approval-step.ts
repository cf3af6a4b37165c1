// The execution path's approval step (execution.ts, after the gate and the argument check, before
// credentials): a call whose tool POLICY.approval asks for (core/gate.ts approvalGate) runs only
// under a yes that covers it. Else nothing is sent, and the answer is the approval to give: a tool
// result saying "approval needed: <link>" (every surface can pass it on; /mcp, REST and Responses
// ask in their own shape from `approval`), or, once, that the person said no. The request is
// audited (`approval_required`), so is a call refused by a denial (`approval_denied`); a call a
// yes released carries the approval's id on its own row.

import type { AuditInput } from "../core/audit.ts";
import { argumentSummary } from "../core/approval-rules.ts";
import type { CallToolResult } from "../core/call-result.ts";
import type { Settings } from "../settings.ts";
import type { ApprovalAsked, CallOutcome } from "./call-end.ts";
import type { ExecutionPort } from "./call-port.ts";

/** What the step needs of the call: its tool, arguments, context and the fields of its audit rows. */
export interface ApprovalCall {
  name: string;
  server: string;
  args: unknown;
  origin: string;
  base: Omit<AuditInput, "type" | "outcome"> & { argsDigest?: string | null };
}

const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }], isError: true });

export function approvalText(a: Pick<ApprovalAsked, "tool" | "server" | "link">): string {
  return (
    `approval needed: ${a.link}\nA person must approve this call of ${a.tool} (server ${a.server}) before it runs. ` +
    `Give them the link (it works once, for a few minutes); after they approve, call the tool again with the same arguments.`
  );
}

/** null: the call may go on (its rows then carry `base.approval`); else how it stops. */
export async function approvalStep(port: ExecutionPort, cfg: Settings, call: ApprovalCall): Promise<CallOutcome | null> {
  const need = port.approval(call.name);
  if (!need) return null;
  const summary = argumentSummary(call.args);
  const remember = need.remember.kind === "minutes" ? `${need.remember.minutes}m` : need.remember.kind;
  const answer = await port.approvals.request({
    session: port.init.id,
    tool: call.name,
    server: call.server,
    digest: call.base.argsDigest ?? "",
    summary,
    rule: need.rule,
    remember,
    origin: call.origin,
    ttlMs: cfg.approvalTtlMs,
  });
  const audit = (e: Omit<AuditInput, "tool">) => port.transaction(() => port.writeAudit([{ ...call.base, ...e, approval: answer.id }]));
  if (answer.kind === "granted") {
    call.base.approval = answer.id;
    return null;
  }
  const asked: ApprovalAsked = {
    id: answer.id,
    status: "pending",
    link: "",
    expiresAt: "",
    tool: call.name,
    server: call.server,
    arguments: summary,
  };
  if (answer.kind === "denied") {
    audit({ type: "call", outcome: "approval_denied", detail: `the person denied it${answer.reason ? `: ${answer.reason}` : ""}` });
    const why = answer.reason ? ` Their reason: ${answer.reason.slice(0, 300)}` : "";
    return {
      ok: true,
      result: text(`the person asked to approve this call of ${call.name} denied it; it was not run.${why}`),
      outcome: "approval_denied",
      approval: { ...asked, status: "denied" },
    };
  }
  if (answer.created) audit({ type: "approval", outcome: "approval_required", detail: `asked by ${need.rule}; remember: ${remember}` });
  const pending = { ...asked, link: answer.link, expiresAt: new Date(answer.expiresAt).toISOString() };
  return { ok: true, result: text(approvalText(pending)), outcome: "approval_required", approval: pending };
}
