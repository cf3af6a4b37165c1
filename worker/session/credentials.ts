// What a call sends its server as credentials: the SERVERS headers (`${SECRET}`s resolved), and for
// a server with "auth": "oauth" the calling user's own bearer token, from the principal's accounts
// (accounts/principal-role.ts). A user who has not connected the server, or whose grant is gone,
// gets a tool result with a connect link instead: the model and the person can act on it, and the
// same call works once connected. A session whose principal names no user has no account to
// connect (R2-M5: its end users would share one): its call is a tool error saying what to send.
// A 401 on the user's token gets one refresh and one retry; a 401 after that drops the connection
// (the next answer is a connect link again). Tokens are secrets of the call: redacted from its
// result and messages like any resolved header.

import { USER_HEADER } from "../auth.ts";
import type { CallToolResult } from "../core/call-result.ts";
import { resolveHeaders, type ServerConfig } from "../core/servers.ts";
import type { Accounts } from "./token-cache.ts";
import type { TokenAnswer } from "../accounts/principal-role.ts";
import type { Settings } from "../settings.ts";
import type { RemoteCall } from "./mcp-client.ts";
import { UpstreamFailure } from "./upstream-failure.ts";

export interface Credentials {
  headers: Record<string, string>;
  /** resolved secret values and tokens: redacted from whatever the call reports */
  secrets: string[];
  /** the user's token (oauth servers) */
  token?: string;
}

/** The answer to a call that needs the user to connect their account first. */
export function connectResult(server: string, link: string): CallToolResult {
  return {
    content: [
      {
        type: "text",
        text: `connect your ${server} account: ${link}\nOpen the link in a browser and authorize; then call this tool again. The link works once, for a few minutes.`,
      },
    ],
    isError: true,
  };
}

/**
 * The principal names no user. What names one: the key's user, an assertsUser key's
 * x-toolsearch-user, or an end-user id the chat surfaces carry (chat/conversation.ts).
 */
export class NeedsUser extends Error {
  constructor(server: string) {
    super(
      `server ${server} authorizes each user with their own account, and this session names no user to connect one for. ` +
        `A session takes its user when it is created, from: an API key that names a user (API_KEYS {"tenant", "user"}), ` +
        `or an "assertsUser" key's ${USER_HEADER} header, or on /v1/chat/completions and /v1/responses the body's ` +
        "`user` (or `safety_identifier`), on /v1/messages its `metadata.user_id` (1-128 letters, digits, _ . @ + or -). " +
        "Call this tool again in a session made with one.",
    );
  }
}

/** The answer to a call of such a server in a session without a user: a tool error, no link. */
export function needsUserResult(e: NeedsUser): CallToolResult {
  return { content: [{ type: "text", text: e.message }], isError: true };
}

export class NeedsConnection extends Error {
  readonly link: string;
  constructor(link: string) {
    super("the user has not connected this server");
    this.link = link;
  }
}

function withToken(base: Credentials, answer: TokenAnswer): Credentials {
  if (answer.kind === "connect") throw new NeedsConnection(answer.link);
  return {
    headers: { ...base.headers, authorization: `Bearer ${answer.token}` },
    secrets: [...base.secrets, answer.token],
    token: answer.token,
  };
}

/** The call's credentials; NeedsUser or NeedsConnection for an oauth server with no user, or not connected. Throws config errors. */
export async function credentialsFor(
  serverName: string,
  server: ServerConfig,
  cfg: Settings,
  accounts: Accounts,
  origin: string,
): Promise<Credentials> {
  const base = resolveHeaders(serverName, server, cfg.secret);
  if (!server.oauth) return base;
  // no principal object is addressed for a principal without a user (it would keep links nobody can complete)
  if (!accounts.user) throw new NeedsUser(serverName);
  return withToken(base, await accounts.token(serverName, origin));
}

/**
 * callRemote with the user's token: on a 401 the principal refreshes (once, whoever asks) and the
 * call is sent again; a second 401 drops the connection (NeedsConnection).
 */
export async function callAsUser(
  serverName: string,
  server: ServerConfig,
  creds: Credentials,
  accounts: Accounts,
  origin: string,
  send: (c: Credentials) => Promise<RemoteCall>,
): Promise<RemoteCall> {
  try {
    return await send(creds);
  } catch (e) {
    if (!server.oauth || !creds.token || !(e instanceof UpstreamFailure) || e.kind !== "unauthorized") throw e;
  }
  const again = withToken(creds, await accounts.rejected(serverName, creds.token, origin));
  try {
    return await send(again);
  } catch (e) {
    if (e instanceof UpstreamFailure && e.kind === "unauthorized")
      throw new NeedsConnection(await linkAfterDrop(accounts, serverName, origin));
    throw e;
  }
}

async function linkAfterDrop(accounts: Accounts, serverName: string, origin: string): Promise<string> {
  const answer = await accounts.drop(serverName, origin);
  return answer.kind === "connect" ? answer.link : "";
}
