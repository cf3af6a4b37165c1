// The one way to reach a principal's approvals: a typed client around the approvals object's stub
// (SessionDO in its approvals role, approval-role.ts), each method one RPC pipelined on
// approvals(). Used by a session object before a call that needs a yes, by /v1/approvals, by the
// approval page, and by the MCP and Responses surfaces when the person answers in the protocol.

import type { Principal } from "../accounts/principal-names.ts";
import { approvalsName } from "./approval-names.ts";
import type { ApprovalAnswer, ApprovalAsk, ApprovalInfo, Decided, Decision } from "./approval-role.ts";

export class ApprovalsClient {
  // typed through Env (SESSIONS is SessionDO's namespace): no import of the class, which uses this client
  private readonly stub: ReturnType<Env["SESSIONS"]["getByName"]>;

  private constructor(env: Pick<Env, "SESSIONS">, p: Principal) {
    this.stub = env.SESSIONS.getByName(approvalsName(p));
  }

  static of(env: Pick<Env, "SESSIONS">, p: Principal): ApprovalsClient {
    return new ApprovalsClient(env, p);
  }

  request(ask: ApprovalAsk): Promise<ApprovalAnswer> {
    return this.stub.approvals().request(ask);
  }

  open(origin: string): Promise<ApprovalInfo[]> {
    return this.stub.approvals().open(origin);
  }

  get(id: string, origin: string): Promise<ApprovalInfo | null> {
    return this.stub.approvals().get(id, origin);
  }

  decide(id: string, d: Decision, origin: string): Promise<Decided> {
    return this.stub.approvals().decide(id, d, origin);
  }
}
