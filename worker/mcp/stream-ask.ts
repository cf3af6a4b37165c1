// The 2025-era way to ask for a yes (approval-ask.ts): `elicitation/create` written on the call's
// own response stream, then the wait for its answer (elicit-waiters.ts), at most as long as the
// approval stays open, ended by the client going away.

import { ApprovalsClient } from "../approvals/approvals-client.ts";
import type { RouteContext } from "../http.ts";
import { settings } from "../settings.ts";
import type { Ask } from "./approval-ask.ts";
import { elicitParams } from "./approval-ask.ts";
import { elicitId, waitFor } from "./elicit-waiters.ts";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";

/** Write a JSON-RPC message on the response stream of request `relatedRequestId` (the transport's send). */
export type SendOnStream = (message: JSONRPCMessage, relatedRequestId: RequestId) => Promise<void>;

export function streamAsk(c: RouteContext, session: string, send: SendOnStream, requestId: RequestId, signal: AbortSignal): Ask {
  return async (a) => {
    const id = elicitId(a.id);
    const approvals = ApprovalsClient.of(c.env, { tenant: c.tenant, user: c.user });
    const timeoutMs = Math.max(0, Date.parse(a.expiresAt) - Date.now()) || settings(c.env).approvalTtlMs;
    const answer = waitFor(id, session, { signal, timeoutMs, check: () => approvals.get(a.id, c.url.origin) });
    await send({ jsonrpc: "2.0", id, method: "elicitation/create", params: elicitParams(a) }, requestId);
    return answer;
  };
}
