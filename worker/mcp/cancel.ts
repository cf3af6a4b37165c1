// Cancellation on /mcp. Each POST gets its own SDK server (routes/mcp.ts), so the SDK's own
// handling of notifications/cancelled (abort the handler of that request id on the same
// connection) never applies: the notification comes in a POST of its own, to a server that never
// saw the call. The gateway therefore keys each tools/call by its JSON-RPC request id, which is
// unique within an MCP session (CallContext.key; session/cancel.ts), and cancels by that key:
// - a notifications/cancelled naming the request id, before the POST is answered (202);
// - the client closing the connection of the POST that carries the tools/call (request.signal).
//   workerd notices a closed connection only when it writes to it, so the SSE answer of a POST
//   carries a comment every MCP_KEEPALIVE_MS while the call runs (the SDK transport's keepAliveMs).

import { CancelledNotificationSchema, isJSONRPCRequest, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import type { RouteContext } from "../http.ts";
import { cancelLater, cancelOnAbort } from "../session/cancel.ts";
import { SessionClient } from "../session/client.ts";

/** how often a POST's SSE answer carries a keep-alive comment while nothing else is sent */
export const MCP_KEEPALIVE_MS = 5_000;

/** The key of a tools/call with JSON-RPC id `id` in its MCP session (1 and "1" are different ids). */
export function mcpCallKey(id: RequestId): string {
  return `mcp:${typeof id}:${id}`;
}

/** Act on the cancellations a POST carries, and watch its connection for the tools/call requests it carries. */
export async function mcpCancels(c: RouteContext, sessionId: string, messages: unknown[]): Promise<void> {
  const session = SessionClient.of(c, sessionId);
  const sent: Promise<void>[] = [];
  for (const m of messages) {
    // the method first: a schema that fails builds an error (a stack trace) for every other message
    const method = (m as { method?: unknown } | null)?.method;
    const cancelled = method === "notifications/cancelled" ? CancelledNotificationSchema.safeParse(m) : null;
    if (cancelled?.success && cancelled.data.params.requestId !== undefined) {
      const why = cancelled.data.params.reason;
      const reason = `the client cancelled the request (notifications/cancelled${why ? `: ${String(why).slice(0, 200)}` : ""})`;
      sent.push(cancelLater(c, session, mcpCallKey(cancelled.data.params.requestId), reason));
    }
    if (method === "tools/call" && isJSONRPCRequest(m)) cancelOnAbort(c, session, mcpCallKey(m.id), c.request.signal);
  }
  await Promise.all(sent);
}
