// Cancellation when the client goes away. An AbortSignal does not cross the session object's RPC,
// so a surface names its calls with a key (CallContext.key) and, when the client is gone, sends
// cancel(key) to the session, whose calls under that key are aborted (calls-in-flight.ts): the
// server is sent notifications/cancelled and the row ends `cancelled`. "Gone" is the request's
// signal (workerd's enable_request_signal: the client closed the connection, also while a stream
// was being read) or, for a stream, its cancellation. By then the request is over, so the RPC runs
// under waitUntil.

import type { RouteContext } from "../http.ts";
import type { SessionClient } from "./client.ts";

export const CLIENT_GONE = "the client went away";

/** what cancelling needs of a session */
type Canceller = Pick<SessionClient, "id" | "cancel">;

/** A key for the calls of one request or turn (`surface:` + random). */
export function callKey(surface: string): string {
  return `${surface}:${crypto.randomUUID()}`;
}

/** Cancel the session's calls under `key` now; the RPC outlives the request. */
export function cancelLater(c: Pick<RouteContext, "ctx">, session: Canceller, key: string, reason: string): Promise<void> {
  const sent = session.cancel(key, reason).then(
    () => {},
    (e: unknown) => console.warn(`cancelling ${key} in session ${session.id} failed: ${String((e as Error)?.message ?? e)}`),
  );
  c.ctx.waitUntil(sent);
  return sent;
}

/** When `signal` aborts, cancel the session's calls under `key`; the function returned stops watching. */
export function cancelOnAbort(
  c: Pick<RouteContext, "ctx">,
  session: Canceller,
  key: string,
  signal: AbortSignal | undefined,
  reason = CLIENT_GONE,
): () => void {
  if (!signal) return () => {};
  const cancel = () => void cancelLater(c, session, key, reason);
  if (signal.aborted) return (cancel(), () => {});
  signal.addEventListener("abort", cancel, { once: true });
  return () => signal.removeEventListener("abort", cancel);
}
