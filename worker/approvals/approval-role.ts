// The approvals role of SessionDO: the Durable Object named `approvals:<tenant>/<user>` keeps the
// principal's requests for a yes (approval-store.ts), outliving every session. Its narrow RPC
// interface: request() (the execution path asks before a call that needs a yes: a yes that covers
// it, a denial not yet told, the open request for the same call, or a new one), the open ones
// (GET /v1/approvals), one by id (the approval page), and decide() (REST, the page, an MCP
// elicitation, a Responses mcp_approval_response), which takes a request once, before it expires.
// Every answer is plain data; ids are this principal's only (another's id is unknown here).

import { RpcTarget } from "cloudflare:workers";
import type { Principal } from "../accounts/principal-names.ts";
import { ApprovalStore, type ApprovalRow, type NewApproval } from "./approval-store.ts";
import { approvalLink, newApprovalId, principalOfApprovals } from "./approval-names.ts";

/** What the execution path asks of a call that needs a yes: the request's fields, the link's origin and how long it stays open. */
export type ApprovalAsk = Omit<NewApproval, "id"> & { origin: string; ttlMs: number };

export type ApprovalAnswer =
  | { kind: "granted"; id: string; first: boolean }
  | { kind: "denied"; id: string; reason: string | null }
  | { kind: "pending"; id: string; link: string; created: boolean; expiresAt: number };

/** An approval as GET /v1/approvals and the page show it (wire/approvals.ts). */
export interface ApprovalInfo {
  id: string;
  session: string;
  tool: string;
  server: string;
  arguments: string;
  rule: string;
  remember: string;
  status: "pending" | "approved" | "denied" | "expired";
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  how: string | null;
  reason: string | null;
  link: string;
}

export interface Decision {
  approve: boolean;
  reason: string | null;
  /** rest, link, elicitation, responses */
  how: string;
  /** who decided: the key's id, or the MCP client that answered */
  by: string;
}

export type Decided = { ok: true; approval: ApprovalInfo } | { ok: false; status: 404 | 409 | 410; reason: string };

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export class ApprovalRole extends RpcTarget {
  private readonly store: ApprovalStore;
  private readonly principal: Principal;

  /** The role of the object named `name`; any other object has none. */
  static of(name: string | undefined, sql: SqlStorage): ApprovalRole {
    const p = principalOfApprovals(name);
    if (!p) throw new Error("this object has no approvals role");
    return new ApprovalRole(sql, p);
  }

  private constructor(sql: SqlStorage, principal: Principal) {
    super();
    this.store = new ApprovalStore(sql);
    this.principal = principal;
  }

  private info(r: ApprovalRow, origin: string, now = Date.now()): ApprovalInfo {
    const status = r.status === "pending" && r.expires_at <= now ? "expired" : r.status;
    return {
      id: r.id,
      session: r.session,
      tool: r.tool,
      server: r.server,
      arguments: r.summary,
      rule: r.rule,
      remember: r.remember,
      status,
      createdAt: iso(r.created_at)!,
      expiresAt: iso(r.expires_at)!,
      decidedAt: iso(r.decided_at),
      decidedBy: r.decided_by,
      how: r.how,
      reason: r.reason,
      link: approvalLink(origin, this.principal, r.id),
    };
  }

  request(ask: ApprovalAsk): ApprovalAnswer {
    const now = Date.now();
    const yes = this.store.grant(ask.session, ask.tool, ask.digest, now);
    if (yes) {
      const first = yes.used_at === null;
      this.store.markUsed(yes.id, now);
      return { kind: "granted", id: yes.id, first };
    }
    const no = this.store.unreportedDenial(ask.session, ask.tool, ask.digest);
    if (no) {
      this.store.markReported(no.id, now);
      return { kind: "denied", id: no.id, reason: no.reason };
    }
    const open = this.store.pending(ask.session, ask.tool, ask.digest, now);
    if (open)
      return {
        kind: "pending",
        id: open.id,
        link: approvalLink(ask.origin, this.principal, open.id),
        created: false,
        expiresAt: open.expires_at,
      };
    const id = newApprovalId();
    const { origin: _o, ttlMs, ...row } = ask;
    this.store.add({ ...row, id }, now, ttlMs);
    return { kind: "pending", id, link: approvalLink(ask.origin, this.principal, id), created: true, expiresAt: now + ttlMs };
  }

  open(origin: string): ApprovalInfo[] {
    const now = Date.now();
    return this.store.open(now).map((r) => this.info(r, origin, now));
  }

  get(id: string, origin: string): ApprovalInfo | null {
    const r = this.store.get(id);
    return r ? this.info(r, origin) : null;
  }

  decide(id: string, d: Decision, origin: string): Decided {
    const now = Date.now();
    const status = d.approve ? "approved" : "denied";
    if (this.store.decide(id, { status, by: d.by, how: d.how, reason: d.reason }, now))
      return { ok: true, approval: this.info(this.store.get(id)!, origin, now) };
    const r = this.store.get(id);
    if (!r) return { ok: false, status: 404, reason: `approval ${id.slice(0, 40)} is not known` };
    if (r.status !== "pending")
      return { ok: false, status: 409, reason: `approval ${id} was already decided: ${r.status} (${r.how}, ${iso(r.decided_at)})` };
    return { ok: false, status: 410, reason: `approval ${id} expired at ${iso(r.expires_at)}; call the tool again for a new one` };
  }
}
