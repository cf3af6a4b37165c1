// The one fetch every OAuth step uses (discovery, registration, the code exchange, refresh,
// revocation), handed to the MCP SDK's client/auth.js functions as their `fetchFn`. Each step runs
// under one deadline, the server's `timeoutMs`, for all of its requests and bodies together; each
// request goes only to https (plain http only on loopback), never follows a redirect (a 3xx is
// refused), and its answer is read to at most OAUTH_ANSWER_MAX_BYTES, counted while it streams.
// A failure is an OAuthStepError whose message names the server, the step and at most the HTTP
// status and the OAuth error code: never a remote body (the SDK's own messages can carry one, and
// a connect page or a tool result would then show what an internal URL answered).

import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { isToolsearchError } from "../core/errors.ts";
import { secureOrLoopback } from "../core/oauth-url.ts";
import { readBytes } from "../http.ts";

/** The largest answer an OAuth endpoint may send (metadata, registration, tokens): real ones are a few KiB. */
export const OAUTH_ANSWER_MAX_BYTES = 256 * 1024;

export type OAuthStep = "discovery" | "registration" | "exchange" | "refresh" | "revocation";

/** Which server a step is for, and its deadline (the SERVERS entry's timeoutMs). */
export interface StepContext {
  server: string;
  timeoutMs: number;
}

export type FetchFn = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A step that failed or was refused; the message is safe to show anywhere. */
export class OAuthStepError extends Error {
  constructor(at: StepContext, step: OAuthStep, reason: string) {
    super(`${at.server}: OAuth ${step} failed: ${reason}`);
    this.name = "OAuthStepError";
  }
}

const NULL_BODY = new Set([204, 205]);

/**
 * Run one step with its bounded fetch. `run` gets the fetch to use (and to pass to the SDK), and
 * `headersOnly`, the same with the body left unread (discovery's probe needs only the 401's
 * WWW-Authenticate, and an MCP server may keep its answer open). The step ends by the deadline
 * whatever it awaits, and whatever it throws becomes an OAuthStepError.
 */
export async function oauthStep<T>(
  at: StepContext,
  step: OAuthStep,
  run: (fetchFn: FetchFn, headersOnly: FetchFn) => Promise<T>,
): Promise<T> {
  const fail = (reason: string) => new OAuthStepError(at, step, reason);
  const late = () => fail(`no answer within ${at.timeoutMs} ms (the server's timeoutMs)`);
  const deadline = new AbortController();
  let lastStatus: number | undefined;

  const send = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    if (!secureOrLoopback(url)) throw fail("a plain http URL on a host that is not loopback was refused; only https is allowed");
    let res: Response;
    try {
      res = await fetch(url, { ...init, redirect: "manual", signal: deadline.signal });
    } catch {
      throw deadline.signal.aborted ? late() : fail("the server could not be reached");
    }
    lastStatus = res.status;
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      throw fail(`the server answered a redirect (HTTP ${res.status}), which is not followed`);
    }
    return res;
  };
  const headersOnly: FetchFn = async (input, init) => {
    const res = await send(input, init);
    await res.body?.cancel().catch(() => {});
    return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
  const fetchFn: FetchFn = async (input, init) => {
    const res = await send(input, init);
    let body: Uint8Array;
    try {
      body = await readBytes(res, OAUTH_ANSWER_MAX_BYTES);
    } catch (e) {
      if (isToolsearchError(e)) throw fail(`the answer (HTTP ${res.status}) is over ${OAUTH_ANSWER_MAX_BYTES} bytes`);
      throw deadline.signal.aborted ? late() : fail(`the answer (HTTP ${res.status}) was cut off`);
    }
    const headers = new Headers(res.headers);
    headers.delete("content-encoding"); // the bytes are decoded already
    headers.delete("content-length");
    return new Response(NULL_BODY.has(res.status) ? null : body, { status: res.status, statusText: res.statusText, headers });
  };

  const timer = setTimeout(() => deadline.abort(), at.timeoutMs);
  const timedOut = new Promise<never>((_, reject) => deadline.signal.addEventListener("abort", () => reject(late())));
  try {
    return await Promise.race([run(fetchFn, headersOnly), timedOut]);
  } catch (e) {
    if (e instanceof OAuthStepError) throw e;
    // the SDK's errors carry the remote body (parseErrorResponse) or its fields: only the status and the error code are kept
    if (lastStatus === undefined) throw fail("it could not be completed");
    const code = e instanceof OAuthError ? ` (${e.errorCode})` : "";
    throw fail(lastStatus >= 400 || code ? `HTTP ${lastStatus}${code}` : `the answer (HTTP ${lastStatus}) is not valid`);
  } finally {
    clearTimeout(timer);
  }
}
