// The page an approval link opens (`/approve/<principal>.<id>`): the tool, its server, the
// arguments and the rule that asked, with Approve and Deny, or what became of the approval. Like
// the connect page (connect-page.ts): no script, escaped text, no framing; the form asks for the
// principal's key, which proves the browser is the principal's (a link seen by someone else, or a
// page of another site, cannot decide), and posts to the same origin with a CSRF token.

import type { ApprovalInfo } from "../approvals/approval-role.ts";
import type { ToolsearchError } from "../core/errors.ts";
import { connectPage, escape, page } from "./connect-page.ts";

export function approvePage(a: ApprovalInfo, host: string, csrf: string | null, headers: Record<string, string> = {}): Response {
  const [tool, server, args, rule] = [a.tool, a.server, a.arguments, a.rule].map(escape);
  const what = `<p><b>${escape(host)}</b> (toolsearch) asks before a call of <b>${tool}</b> on server <b>${server}</b> runs, because of ${rule}.</p>
<p>Arguments:</p><pre style="white-space:pre-wrap;background:#f4f4f4;padding:.5em">${args}</pre>
<p>Session ${escape(a.session)}; asked ${escape(a.createdAt)}; a yes lasts: ${escape(a.remember)}.</p>`;
  if (!csrf || a.status !== "pending") {
    const how = a.status === "expired" ? `It expired at ${a.expiresAt}.` : `It was ${a.status} (${a.how ?? ""}, ${a.decidedAt ?? ""}).`;
    return page(a.status === "pending" ? 200 : 410, `This approval is ${a.status}`, `${what}<p>${escape(how)}</p>`, headers);
  }
  return page(
    200,
    `Approve ${a.tool}?`,
    `${what}<p>Decide only if this call is yours. Give the API key the agent uses: it proves this approval was made for you, and is not stored.</p>
<form method="post" data-approve><label>API key <input type="password" name="key" autocomplete="off" required></label>
<p><label>Reason (optional) <input name="reason" maxlength="500"></label></p>
<input type="hidden" name="csrf" value="${escape(csrf)}">
<button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="deny">Deny</button></form>`,
    headers,
  );
}

export function approvedPage(a: ApprovalInfo): Response {
  const text =
    a.status === "approved"
      ? `You approved ${a.tool}. Go back to your agent: the call runs when it calls the tool again.`
      : `You denied ${a.tool}. The agent is told when it calls the tool again.`;
  return connectPage(200, a.status === "approved" ? "Approved" : "Denied", text);
}

/** A refused approval link or form, as a page. */
export function approvePageError(err: ToolsearchError): Response {
  const title = err.status >= 500 ? "Could not decide" : "This approval link does not work";
  return connectPage(err.status, title, err.status === 500 ? "internal error; the Worker's log says more" : err.message);
}
