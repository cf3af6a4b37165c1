// The calls a session object is running on upstream servers, by the id of their write-ahead audit
// row. A call's row is written `started` before anything is sent (execution.ts) and completed
// when the call ends; deleting the session aborts the calls still running (their servers are
// sent notifications/cancelled). What the ledger lives in is the object's memory: after a restart
// it is empty, so a row still `started` then belongs to a call whose answer was lost, and becomes
// `unknown` (settle).

import type { AuditInput } from "../core/audit.ts";
import { completeAudit, markUnknown } from "./audit-store.ts";
import type { CallEnd } from "./execution.ts";

export interface StartedCall {
  /** aborts when the call must stop: the session was deleted */
  signal: AbortSignal;
  /** complete the row (inside the transaction that stores what the call changed) */
  end(end: CallEnd): void;
}

export class CallsInFlight {
  private readonly live = new Map<string, AbortController>();
  private readonly sql: () => SqlStorage;

  constructor(sql: () => SqlStorage) {
    this.sql = sql;
  }

  get size(): number {
    return this.live.size;
  }

  /** Track a call whose `started` row `write` inserts (and returns the id of). */
  begin(write: (event: Pick<AuditInput, "outcome">) => string): StartedCall {
    const id = write({ outcome: "started" });
    const ctl = new AbortController();
    this.live.set(id, ctl);
    return {
      signal: ctl.signal,
      end: (end) => {
        completeAudit(this.sql(), id, end);
        this.live.delete(id);
      },
    };
  }

  abortAll(reason: string): void {
    for (const ctl of this.live.values()) ctl.abort(new Error(reason));
  }

  /** Rows `started` by no call of this instance become `unknown`; the number changed. */
  settle(): number {
    return markUnknown(this.sql(), new Set(this.live.keys()));
  }
}
