// One decision on an approval, whoever takes it (REST, the approval page, an MCP elicitation, a
// Responses mcp_approval_response): the principal's approvals object decides it once, before it
// expires, and the session it belongs to audits the decision (`approval` row: who, how, why),
// linked by the approval's id. A refusal is the coded error the surface shows: 404 (not this
// principal's, or no such id), 409 (already decided), 410 (expired).

import type { Principal } from "../accounts/principal-names.ts";
import { ToolsearchError } from "../core/errors.ts";
import { SessionClient } from "../session/client.ts";
import { ApprovalsClient } from "./approvals-client.ts";
import type { ApprovalInfo, Decision } from "./approval-role.ts";

export interface Decider {
  env: Env;
  principal: Principal;
  /** the API key's id that decided ("" for an MCP client's answer) */
  key: string;
  origin: string;
}

export async function decideApproval(d: Decider, id: string, decision: Decision): Promise<ApprovalInfo> {
  const done = await ApprovalsClient.of(d.env, d.principal).decide(id, decision, d.origin);
  if (!done.ok) throw new ToolsearchError(done.status === 409 ? "conflict" : "not_found", done.reason, done.status);
  const a = done.approval;
  const session = SessionClient.of({ env: d.env, tenant: d.principal.tenant, user: d.principal.user, key: d.key }, a.session);
  const why = decision.reason ? `: ${decision.reason}` : "";
  await session
    .recordEvent({
      type: "approval",
      tool: a.tool,
      server: a.server,
      outcome: decision.approve ? "approved" : "approval_denied",
      via: decision.how,
      client: null,
      approval: a.id,
      detail: `${decision.approve ? "approved" : "denied"} by ${decision.by} (${decision.how})${why}`,
    })
    // the session may be gone since: the decision stands, the approvals object keeps it
    .catch(() => {});
  return a;
}
