// The 2026-07-28 way to ask for a yes (approval-ask.ts): the spec's multi round-trip request. A
// call whose tool needs a person's approval answers `input_required`, with the form-mode
// elicitation in `inputRequests.approval` and `requestState` naming the approval (signed for this
// session with SESSION_ID_SECRET); the client asks the person and sends the same tools/call again
// with `inputResponses.approval`. That answer decides the approval, and the call runs (or tells
// the denial). Stateless: any isolate takes the retry. State of another session, a forged one, or
// a retry without the answer asks again.

import { sign } from "../accounts/sealed.ts";
import type { RouteContext } from "../http.ts";
import type { ApprovalAsked } from "../session/call-end.ts";
import { settings } from "../settings.ts";
import { decideFromAnswer, elicitParams, readAnswer, type Ask } from "./approval-ask.ts";

/** Thrown by the ask of a call that must first go back to the client: the handler answers `input_required`. */
export class InputNeeded extends Error {
  readonly approval: ApprovalAsked;
  constructor(approval: ApprovalAsked) {
    super("input required");
    this.approval = approval;
  }
}

const secret = (c: RouteContext) => settings(c.env).secret("SESSION_ID_SECRET") ?? "";

/** What the call's answer is when it needs a yes: the elicitation, and the state the retry echoes. */
export async function inputRequiredResult(c: RouteContext, session: string, a: ApprovalAsked) {
  const tag = await sign(secret(c), `${session}.${a.id}`);
  return {
    resultType: "input_required" as const,
    inputRequests: { approval: { method: "elicitation/create" as const, params: elicitParams(a) } },
    requestState: `${a.id}.${tag}`,
  };
}

export interface Retry {
  state?: string;
  responses?: Record<string, unknown>;
  client?: string;
}

/** The ask of one tools/call: the retry's answer for its own approval, else back to the client. */
export function retryAsk(c: RouteContext, session: string, retry: Retry): Ask {
  return async (a) => {
    const [id, tag] = (retry.state ?? "").split(".");
    const answer = retry.responses?.approval;
    if (id !== a.id || !tag || answer === undefined || tag !== (await sign(secret(c), `${session}.${a.id}`))) throw new InputNeeded(a);
    const read = readAnswer(answer);
    await decideFromAnswer(c, a.id, read, retry.client);
    return read;
  };
}
