// The 2025-era elicitation round trip on a stateless gateway (server.ts): a call that needs a yes
// sends `elicitation/create` on its own response stream with an id of ours,
// `toolsearch-approval:<approval id>:<random>`; the client's answer arrives as another POST
// (routes/mcp.ts), which decides the approval durably (approval-ask.ts, approvals/decide.ts) and
// wakes the waiting call if it runs in this isolate. A call whose answer went to another isolate
// still learns the decision: it asks the approvals object every POLL_MS. Memory only, bounded.

import type { ApprovalInfo } from "../approvals/approval-role.ts";
import type { ElicitAnswer } from "./approval-ask.ts";

const PREFIX = "toolsearch-approval:";
const POLL_MS = 2000;
const MAX_WAITING = 1000;

type Woken = ElicitAnswer | { kind: "decided" } | { kind: "failed" };
const waiting = new Map<string, { session: string; wake: (w: Woken) => void }>();

export function elicitId(approval: string): string {
  return `${PREFIX}${approval}:${crypto.randomUUID()}`;
}

/** The approval an answer's id names; null for ids not ours. */
export function approvalOfId(id: unknown): string | null {
  const m = typeof id === "string" ? /^toolsearch-approval:(ap_[A-Za-z0-9_-]{22}):[0-9a-f-]{36}$/.exec(id) : null;
  return m ? m[1]! : null;
}

/**
 * Wait for the answer to `id`: woken by wake(), or a decision seen by `check`, until `signal`
 * aborts or `timeoutMs` passes (then `failed`).
 */
export function waitFor(
  id: string,
  session: string,
  opts: { signal: AbortSignal; timeoutMs: number; check: () => Promise<ApprovalInfo | null> },
): Promise<Woken> {
  return new Promise<Woken>((resolve) => {
    if (waiting.size >= MAX_WAITING) return resolve({ kind: "failed" });
    let done = false;
    const finish = (w: Woken) => {
      if (done) return;
      done = true;
      waiting.delete(id);
      clearInterval(poll);
      clearTimeout(timer);
      opts.signal.removeEventListener("abort", abort);
      resolve(w);
    };
    const abort = () => finish({ kind: "failed" });
    const timer = setTimeout(abort, opts.timeoutMs);
    const poll = setInterval(() => {
      void opts
        .check()
        .then((a) => a && a.status !== "pending" && finish({ kind: "decided" }))
        .catch(() => {});
    }, POLL_MS);
    opts.signal.addEventListener("abort", abort);
    waiting.set(id, { session, wake: finish });
  });
}

/** Wake the call waiting for `id` in `session` (another session's id wakes nothing). */
export function wake(id: string, session: string, w: Woken): void {
  const waiter = waiting.get(id);
  if (waiter && waiter.session === session) waiter.wake(w);
}
