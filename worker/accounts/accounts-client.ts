// The one way to reach a principal's accounts: a typed client around the principal object's stub
// (SessionDO in its principal role, accounts/principal-role.ts). Each method is one RPC, the
// role's method pipelined on principal(). Used by a session object for its calls' tokens, by
// /v1/connections, and by the connect page's POST and its callback (which know the principal only from
// the link or the state).

import { principalName, type Principal } from "./principal-names.ts";
import type { ConnectionInfo, FlowFinished, LinkOpened, TokenAnswer } from "./principal-role.ts";

export class AccountsClient {
  // typed through Env (SESSIONS is SessionDO's namespace): no import of the class, which uses this client
  private readonly stub: ReturnType<Env["SESSIONS"]["getByName"]>;

  private constructor(env: Pick<Env, "SESSIONS">, p: Principal) {
    this.stub = env.SESSIONS.getByName(principalName(p));
  }

  static of(env: Pick<Env, "SESSIONS">, p: Principal): AccountsClient {
    return new AccountsClient(env, p);
  }

  token(server: string, origin: string): Promise<TokenAnswer> {
    return this.stub.principal().token(server, origin);
  }

  rejected(server: string, token: string, origin: string): Promise<TokenAnswer> {
    return this.stub.principal().rejected(server, token, origin);
  }

  drop(server: string, origin: string): Promise<TokenAnswer> {
    return this.stub.principal().drop(server, origin);
  }

  connections(): Promise<ConnectionInfo[]> {
    return this.stub.principal().connections();
  }

  disconnect(server: string): Promise<{ removed: boolean; revoked: boolean }> {
    return this.stub.principal().disconnect(server);
  }

  startFlow(secret: string, server: string, origin: string): Promise<LinkOpened> {
    return this.stub.principal().startFlow(secret, server, origin);
  }

  finish(flow: string, code: string, iss?: string): Promise<FlowFinished> {
    return this.stub.principal().finish(flow, code, iss);
  }
}
