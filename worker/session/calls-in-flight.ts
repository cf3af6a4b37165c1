// The calls a session object is running on upstream servers, by the id of their write-ahead audit
// row. A call's row is written `started` before anything is sent (execution.ts) and completed
// when the call ends. A call may carry a key the caller chose (a route's call id, an MCP request
// id) so that the caller can cancel it later: an AbortSignal does not cross the object's RPC, so
// the route sends cancel(key) instead. Deleting the session aborts every call still running.
// Either way the server is sent notifications/cancelled and the row ends `cancelled`. A cancelled
// key stays cancelled for a minute: a cancel may overtake its call (two RPCs, no order between
// them), and a chat turn's later calls share its key; a call that begins with it is aborted at
// once, before its request is sent. What the ledger
// lives in is the object's memory: after a restart it is empty, so a row still `started` then
// belongs to a call whose answer was lost, and becomes `unknown` (settle).

import type { AuditInput } from "../core/audit.ts";
import { completeAudit, markUnknown } from "./audit-store.ts";
import type { CallEnd } from "./call-end.ts";

export interface StartedCall {
  /** aborts when the call must stop: cancelled by its key, or the session was deleted */
  signal: AbortSignal;
  /** complete the row (inside the transaction that stores what the call changed) */
  end(end: CallEnd): void;
}

/** how long a cancelled key keeps cancelling the calls that begin with it */
const EARLY_CANCEL_MS = 60_000;
const EARLY_CANCEL_MAX = 1000;

export class CallsInFlight {
  private readonly live = new Map<string, { ctl: AbortController; key?: string }>();
  /** keys cancelled, with when that stops counting */
  private readonly early = new Map<string, number>();
  private readonly sql: () => SqlStorage;

  constructor(sql: () => SqlStorage) {
    this.sql = sql;
  }

  get size(): number {
    return this.live.size;
  }

  /** Track a call whose `started` row `write` inserts (and returns the id of); `key` names it for cancel(). */
  begin(write: (event: Pick<AuditInput, "outcome">) => string, key?: string): StartedCall {
    const id = write({ outcome: "started" });
    const ctl = new AbortController();
    this.live.set(id, { ctl, key });
    const early = key === undefined ? undefined : this.early.get(key);
    if (early !== undefined && early > Date.now()) ctl.abort(new Error("cancelled by the client before it started"));
    return {
      signal: ctl.signal,
      end: (end) => {
        completeAudit(this.sql(), id, end);
        this.live.delete(id);
      },
    };
  }

  /** Abort the calls running under `key`, and those that begin with it for a minute; the number aborted now. */
  cancel(key: string, reason: string): number {
    const now = Date.now();
    for (const [k, until] of this.early) if (until <= now || this.early.size >= EARLY_CANCEL_MAX) this.early.delete(k);
    this.early.set(key, now + EARLY_CANCEL_MS);
    let n = 0;
    for (const call of this.live.values()) {
      if (call.key !== key || call.ctl.signal.aborted) continue;
      call.ctl.abort(new Error(reason));
      n++;
    }
    return n;
  }

  abortAll(reason: string): void {
    for (const { ctl } of this.live.values()) ctl.abort(new Error(reason));
  }

  /** Rows `started` by no call of this instance become `unknown`; the number changed. */
  settle(): number {
    return markUnknown(this.sql(), new Set(this.live.keys()));
  }
}
