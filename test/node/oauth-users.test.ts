// End users of one app keep their own upstream accounts (issue 39 R2-M5), in `wrangler dev` with the
// accounts fixture (its authorization server logs a browser in as its person) and the scripted
// model for chat and for Messages (the Chat Completions upstream answers both). One tenant key that
// names no user serves three end users: Ann on chat (`user`), Ben on chat too, Cat on the Messages
// API (`metadata.user_id`). Ann connects; Ben and Cat then get connect links of their own, never
// Ann's account, and Cat's connection is Cat's. Without any user (the tenant key with no end-user
// id, an assertsUser key with no x-toolsearch-user) a call of the OAuth server is a tool error that
// says what to send, audited `needs_user`, and nothing reaches the server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browser as browseAs, control, oauthWorkerVars, startOAuthServers, type OAuthServers } from "../fixtures/oauth-servers.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const KEYS = { app: "users-key-app-0000000000", backend: "users-key-backend-000000" };

let up: OAuthServers;
let llm: ScriptedLLM;
let dev: DevServer;
const answers: string[] = [];

beforeAll(async () => {
  let state: string;
  [up, llm, state] = await Promise.all([startOAuthServers(), startScriptedLLM(), tempDir("toolsearch-oauth-users-")]);
  dev = await startWranglerDev({
    env: "test",
    persistTo: state,
    vars: oauthWorkerVars(up, llm.url, { [KEYS.app]: "acme", [KEYS.backend]: { tenant: "acme", assertsUser: true } }),
  });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await llm?.close();
  await up?.stop();
});

/**
 * Open a connect link in `person`'s browser and authorize there: the one place that knows how a
 * link is completed (the confirmation page's form takes the app's key as the proof that the
 * browser acts for the link's account, which that key may name).
 */
const openAs = (person: string, link: string) => browseAs(up.accounts, person, answers, KEYS.app)(link);

const auth = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; body: Json; headers: Headers }> {
  const res = await fetch(`${dev.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** What the model was given as the edge call's result in the turn that carried `marker`. */
function toolResult(marker: string): string {
  const turn = llm.requests.filter((r) => JSON.stringify(r.body.messages).includes(marker)).at(-1)!;
  const last = turn.body.messages.at(-1)!;
  expect(last.role).toBe("tool");
  return String(last.content).replace(/^Error: /, "");
}

/** A chat turn at the edge for the app's end user `user` (none: no end-user id); what the model was given. */
async function chat(user: string | undefined, extra: Record<string, string> = {}) {
  const marker = crypto.randomUUID();
  const r = await post(
    "/v1/chat/completions",
    { model: "gpt-4o", ...(user ? { user } : {}), messages: [{ role: "user", content: `whoami: who am I? (${marker})` }] },
    { ...auth(KEYS.app), "x-toolsearch-execution": "edge", ...extra },
  );
  return { ...r, given: r.status === 200 ? toolResult(marker) : "" };
}

/** A Messages turn at the edge for the end user in `metadata.user_id`; what the model was given. */
async function messages(userId: string) {
  const marker = crypto.randomUUID();
  const r = await post(
    "/v1/messages",
    {
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      metadata: { user_id: userId },
      messages: [{ role: "user", content: `whoami: who am I? (${marker})` }],
    },
    { "x-api-key": KEYS.app, "anthropic-version": "2023-06-01", "content-type": "application/json", "x-toolsearch-execution": "edge" },
  );
  expect(r.status).toBe(200);
  return toolResult(marker);
}

const LINK_RE = /^connect your accounts account: (\S+)$/m;
/** The link in a result, and the account (tenant/user) it was made for. */
function linkOf(text: string): { link: string; account: string } {
  const link = LINK_RE.exec(text)?.[1];
  expect(link, text).toBeDefined();
  const token = new URL(link!).pathname.split("/").at(-1)!.split(".")[0]!;
  return { link: link!, account: Buffer.from(token, "base64url").toString() };
}

const NEEDS_USER =
  /^server accounts authorizes each user with their own account, and this session names no user to connect one for\. A session takes its user when it is created, from: an API key that names a user .*"assertsUser" key's x-toolsearch-user header.*`user` \(or `safety_identifier`\).*`metadata\.user_id`.*Call this tool again in a session made with one\.$/;

describe("end users of one key", () => {
  it("Ann connects on chat; Ben (chat `user`) and Cat (Messages `metadata.user_id`) get links of their own, never Ann's account", async () => {
    const ann = linkOf((await chat("ann")).given);
    expect(ann.account).toBe("acme/ann");
    expect((await openAs("ann", ann.link)).text).toContain("connected; go back to your agent");
    expect((await chat("ann")).given).toBe("you are ann (token 1)");

    const ben = linkOf((await chat("ben")).given);
    expect(ben.account).toBe("acme/ben");
    const cat = linkOf(await messages("cat"));
    expect(cat.account).toBe("acme/cat");
    // Cat's connection is Cat's; Ben still has none, and Ann still has hers
    await openAs("cat", cat.link);
    expect(await messages("cat")).toBe("you are cat (token 1)");
    expect(linkOf((await chat("ben")).given).account).toBe("acme/ben");
    expect((await chat("ann")).given).toBe("you are ann (token 1)");
    // the authorization server gave codes to Ann and Cat only
    const codes = ((await control(up.accounts, "log")).events as Json[]).filter((e) => e.type === "code").map((e) => e.user);
    expect(codes).toEqual(["ann", "cat"]);
  });

  it("a session named by header for another end user than the body names is a 409", async () => {
    const first = await chat("ann");
    const id = first.headers.get("x-toolsearch-session")!;
    const other = await chat("ben", { "x-toolsearch-session": id });
    expect(other.status).toBe(409);
    expect(other.body.error.message).toMatch(/belongs to another end user than this request names/);
  });
});

describe("no user: a tool error that says what to send, no link", () => {
  it("the tenant key on chat without an end-user id, and an assertsUser key without x-toolsearch-user: audited needs_user; nothing reaches the server", async () => {
    const before = (await control(up.accounts, "log")).mcp as number;
    expect((await chat(undefined)).given).toMatch(NEEDS_USER);

    const session = await post("/v1/sessions", { model: "gpt-4o", deferral: "on" }, auth(KEYS.backend));
    const id = session.body.id as string;
    const r = await post(`/v1/sessions/${id}/tools/mcp__accounts__whoami/call`, { arguments: {} }, auth(KEYS.backend));
    expect(r.status).toBe(200);
    expect(r.body.isError).toBe(true);
    expect(r.body.content[0].text).toMatch(NEEDS_USER);
    expect(r.body.content[0].text).not.toMatch(/connect your/);
    const audit = (await (await fetch(`${dev.url}/v1/sessions/${id}/audit`, { headers: auth(KEYS.backend) })).json()) as Json;
    expect((audit.events as Json[]).filter((e) => e.type === "call").map((e) => [e.tool, e.outcome, e.user])).toEqual([
      ["mcp__accounts__whoami", "needs_user", null],
    ]);
    expect((await control(up.accounts, "log")).mcp).toBe(before);
    // a key that names no user has no accounts
    const list = (await (await fetch(`${dev.url}/v1/connections`, { headers: auth(KEYS.app) })).json()) as Json;
    expect(list.connections).toEqual([]);
  });
});
