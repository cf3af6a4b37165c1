// What a call needs, as the one execution path (execution.ts) and the resource gate
// (resource-gate.ts) see it: who is calling (CallContext: the surface, the client, the origin
// connect links point to, the API key whose quota its upstream calls count against) and what of
// its session (ExecutionPort: frozen fields, activations, the gate, audit, server sessions, the
// principal's accounts and approvals, the key's quota of upstream calls).

import type { AuditInput } from "../core/audit.ts";
import type { ApprovalGate, Gate } from "../core/gate.ts";
import type { ApprovalsClient } from "../approvals/approvals-client.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import type { CallEnd } from "./call-end.ts";
import type { Progress } from "./mcp-client.ts";
import type { ServerSessions } from "./server-sessions.ts";
import type { SessionInit } from "./state.ts";
import type { Accounts } from "./token-cache.ts";

/**
 * Who is calling: the surface and the client program it names (MCP clientInfo), for the audit
 * trail; `onProgress` (a stub across RPC) asks the server for progress.
 */
export interface CallContext {
  via: "rest" | "chat" | "mcp" | "code";
  client?: string;
  /** the code-mode run that made the call (its audit rows carry it) */
  run?: string;
  onProgress?: (p: Progress) => void;
  /** names the call for SessionClient.cancel (an AbortSignal does not cross the object's RPC) */
  key?: string;
  /** the Worker's origin as the caller reached it: connect links point there (SessionClient sets it) */
  origin?: string;
  /** the caller's API key id (auth.ts): upstream calls count against its quota (SessionClient sets it) */
  keyId?: string;
}

/** What a call needs of its session: the frozen fields, its activations, audit and server sessions. */
export interface ExecutionPort {
  init: SessionInit;
  activations: readonly string[];
  /** the session's one tool gate (core/gate.ts): why the tool may not run, or undefined */
  gate: Gate;
  /** the same gate's approval rules: whether a call needs a person's yes first */
  approval: ApprovalGate;
  /** the session principal's approvals (approvals/approval-role.ts) */
  approvals: Pick<ApprovalsClient, "request">;
  /** null: the session was deleted meanwhile */
  activate(names: string[], query: string, audit: ActivationAudit): Promise<ActivationResult | null>;
  /** write audit rows in a transaction of their own, or inside `transaction` */
  writeAudit(events: readonly AuditInput[]): void;
  /**
   * Write-ahead: a call's row with outcome `started` (inside `transaction`). `signal` aborts when
   * the call must stop (cancelled by `key`, or the session is deleted); `end` completes the row.
   */
  begin(event: Omit<AuditInput, "outcome">, key?: string): { signal: AbortSignal; end(update: CallEnd): void };
  transaction<T>(fn: () => T): T;
  servers: ServerSessions;
  /** the session principal's upstream accounts (servers with "auth": "oauth") */
  accounts: Accounts;
  /** take one upstream call from the caller's key quota (quota-client.ts); RateLimited when it is used up */
  upstream(context: CallContext): Promise<void>;
}
