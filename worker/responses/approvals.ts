// Approvals on the Responses API (POLICY.approval), in OpenAI's own shape: an edge call that waits
// for a person's yes ends the turn as an `mcp_approval_request` output item `{id, name,
// server_label, arguments}` (the id is the approval's); the stored conversation keeps the model's
// call. The next request's `mcp_approval_response` `{approval_request_id, approve, reason}`
// decides it (audited `responses`), and the same call then runs through the execution path (a no
// is told once), its result becoming the call's output, so the model goes on from there.

import { ApprovalsClient } from "../approvals/approvals-client.ts";
import { decideApproval } from "../approvals/decide.ts";
import { argumentSummary } from "../core/approval-rules.ts";
import type { ChatMessage } from "../core/chat.ts";
import { resultText } from "../core/call-result.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { RouteContext } from "../http.ts";
import type { ApprovalAsked } from "../session/call-end.ts";
import type { SessionClient } from "../session/client.ts";
import type { OutputItem } from "./shapes.ts";
import type { Item } from "./translate.ts";

type Answer = Extract<Item, { type: "mcp_approval_response" }>;

const argsOf = (raw: string) => {
  try {
    return JSON.parse(raw || "{}") as unknown;
  } catch {
    return raw;
  }
};

/** The output with each call that waits for a yes as its approval request. */
export function withApprovalRequests(output: OutputItem[], asked: readonly ApprovalAsked[]): OutputItem[] {
  if (!asked.length) return output;
  return output.map((item) => {
    if (item.type !== "function_call") return item;
    const a = asked.find((x) => x.tool === item.name && x.arguments === argumentSummary(argsOf(item.arguments)));
    return a ? { type: "mcp_approval_request", id: a.id, name: a.tool, server_label: a.server, arguments: item.arguments } : item;
  });
}

/**
 * The input with each mcp_approval_response decided, and answered by the output of the call it
 * approved or denied (run now). `history`: the stored conversation, where the call was made.
 */
export async function answerApprovals(
  c: RouteContext,
  session: SessionClient | null,
  history: ChatMessage[],
  input: Item[],
): Promise<Item[]> {
  if (!input.some((i) => i.type === "mcp_approval_response")) return input;
  if (!session)
    throw new ToolsearchError("bad_request", "input: an mcp_approval_response needs previous_response_id, the response that asked");
  const calls = history.flatMap((m) => m.tool_calls ?? []);
  const out: Item[] = [];
  for (const [i, it] of input.entries()) {
    if (it.type !== "mcp_approval_response") {
      out.push(it);
      continue;
    }
    const a = await answer(c, session, it, i);
    const call = calls.find((t) => t.function.name === a.tool && argumentSummary(argsOf(t.function.arguments)) === a.arguments);
    if (!call) throw new ToolsearchError("bad_request", `input.${i}.approval_request_id: no call of the conversation waits for it`);
    const outcome = await session.run(call.function.name, argsOf(call.function.arguments), { via: "chat" });
    const text = outcome.ok ? resultText(outcome.result) : `Error: ${outcome.message}`;
    out.push({ type: "function_call_output", call_id: call.id, output: text });
  }
  return out;
}

async function answer(c: RouteContext, session: SessionClient, it: Answer, i: number) {
  const principal = { tenant: c.tenant, user: c.user };
  const field = `input.${i}.approval_request_id`;
  // only an approval of this conversation's session: another's (or a forged id) is not known here
  const known = await ApprovalsClient.of(c.env, principal).get(it.approval_request_id, c.url.origin);
  if (!known || known.session !== session.id)
    throw new ToolsearchError("not_found", `${field}: approval ${it.approval_request_id.slice(0, 40)} is not known`);
  const decider = { env: c.env, principal, key: c.key, origin: c.url.origin };
  const decision = { approve: it.approve, reason: it.reason ?? null, how: "responses", by: `key ${c.key}` };
  try {
    return await decideApproval(decider, it.approval_request_id, decision);
  } catch (e) {
    if (e instanceof ToolsearchError) throw new ToolsearchError(e.code, `${field}: ${e.message}`, e.status);
    throw e;
  }
}
