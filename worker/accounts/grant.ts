// What a token endpoint answered (the code exchange, a refresh), checked before anything is stored
// (R2-L3): the tokens are 1 to MAX_TOKEN_CHARS printable ASCII characters with no space, CR or LF
// (every call sends the access token in an Authorization header: one CR/LF would break each of
// them), `expires_in` an integer number of seconds from 1 to a year (out of range is refused, not
// clamped: a server that says 1e13 is not one to guess for; an overflowing expiry once made
// GET /v1/connections fail for good), and `scope` scope tokens (RFC 6749 section 3.3). A refused
// answer is an OAuthStepError naming the field, never its value.

import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { OAuthStepError, type OAuthStep, type StepContext } from "./oauth-fetch.ts";

/** Stored tokens, with when they were issued and when they expire (ms since 1970). */
export interface Grant {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  issuedAt: number;
  expiresAt?: number;
}

export const MAX_TOKEN_CHARS = 8192;
export const MAX_EXPIRES_IN_S = 365 * 24 * 3600;
const TOKEN_RE = new RegExp(`^[\\x21-\\x7e]{1,${MAX_TOKEN_CHARS}}$`);
const SCOPE_RE = /^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/;
const MAX_SCOPE_CHARS = 4096;

function refusal(tokens: OAuthTokens): string | null {
  if (!TOKEN_RE.test(tokens.access_token))
    return `its access_token is not 1 to ${MAX_TOKEN_CHARS} printable ASCII characters without spaces`;
  if (tokens.refresh_token !== undefined && !TOKEN_RE.test(tokens.refresh_token))
    return `its refresh_token is not 1 to ${MAX_TOKEN_CHARS} printable ASCII characters without spaces`;
  const life = tokens.expires_in;
  if (life !== undefined && !(Number.isInteger(life) && life >= 1 && life <= MAX_EXPIRES_IN_S))
    return `its expires_in is not a whole number of seconds from 1 to ${MAX_EXPIRES_IN_S}`;
  if (tokens.scope && (tokens.scope.length > MAX_SCOPE_CHARS || !SCOPE_RE.test(tokens.scope)))
    return "its scope is not a list of scope names (RFC 6749 section 3.3)";
  return null;
}

/** The grant to store from a token endpoint's answer; an OAuthStepError (nothing stored) when the answer is junk. */
export function grantOf(at: StepContext, step: OAuthStep, tokens: OAuthTokens, now: number): Grant {
  const why = refusal(tokens);
  if (why) throw new OAuthStepError(at, step, `the token endpoint's answer was refused: ${why}`);
  return {
    access_token: tokens.access_token,
    ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
    ...(tokens.scope ? { scope: tokens.scope } : {}),
    issuedAt: now,
    ...(tokens.expires_in !== undefined ? { expiresAt: now + tokens.expires_in * 1000 } : {}),
  };
}
