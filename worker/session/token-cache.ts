// A session object's memory of its users' tokens: the principal's answer to token() kept for a
// few seconds (and never past its refresh time), so a run of calls asks the principal's object
// once, not per call (RESULTS.md section 8, per-user tokens). Memory only: nothing is written.
// After a 401 the entry is replaced by what rejected() answers; a connect link is never kept. The
// price of the window: a connection deleted at the principal (DELETE /v1/connections) keeps
// working in a session for up to HOLD_MS where the server offers no revocation (with revocation,
// the server's 401 sends the call to the principal, which answers a link).

import { AccountsClient } from "../accounts/accounts-client.ts";
import type { TokenAnswer } from "../accounts/principal-role.ts";

export type Accounts = Pick<AccountsClient, "token" | "rejected" | "drop"> & {
  /** the user of the session's principal; "" when it names none (no account can be connected for it) */
  readonly user: string;
};

const HOLD_MS = 10_000;

export class TokenCache implements Accounts {
  private readonly held = new Map<string, { token: string; until: number }>();
  private readonly env: Env;
  private readonly init: () => { tenant?: string; user?: string } | null;

  /** `init`: the session's frozen fields, read on use (an object gets its session after it starts) */
  constructor(env: Env, init: () => { tenant?: string; user?: string } | null) {
    this.env = env;
    this.init = init;
  }

  get user(): string {
    return this.init()?.user ?? "";
  }

  private accounts(): AccountsClient {
    return AccountsClient.of(this.env, { tenant: this.init()?.tenant ?? "", user: this.user });
  }

  private keep(server: string, answer: TokenAnswer): TokenAnswer {
    if (answer.kind === "token")
      this.held.set(server, { token: answer.token, until: Math.min(answer.until ?? Infinity, Date.now() + HOLD_MS) });
    else this.held.delete(server);
    return answer;
  }

  async token(server: string, origin: string): Promise<TokenAnswer> {
    const h = this.held.get(server);
    if (h && Date.now() < h.until) return { kind: "token", token: h.token };
    return this.keep(server, await this.accounts().token(server, origin));
  }

  async rejected(server: string, token: string, origin: string): Promise<TokenAnswer> {
    this.held.delete(server);
    return this.keep(server, await this.accounts().rejected(server, token, origin));
  }

  async drop(server: string, origin: string): Promise<TokenAnswer> {
    this.held.delete(server);
    return this.accounts().drop(server, origin);
  }
}
