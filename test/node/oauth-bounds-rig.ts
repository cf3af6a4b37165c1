// The environment of test/node/oauth-bounds.test.ts: the honest accounts fixture as SERVERS
// `accounts`, a malicious MCP server with its own authorization server (test/fixtures/oauth-hostile.ts)
// as `demo` (no issuer configured) and another as `service` (its issuer pinned in SERVERS), a sink
// that redirects point at, a listener on a non-loopback address when the machine has one, and
// `wrangler dev` with one `assertsUser` key (one environment per test file: `rig`); then the steps
// the tests repeat: a call in a new session, its connect link, opening a link in a browser as a
// person (openAs, the one place that does), the user's connections. Every answer is kept in
// `rig.answers`.
import { networkInterfaces } from "node:os";
import { expect } from "vitest";
import { startHostile, type Hostile } from "../fixtures/oauth-hostile.ts";
import { browser, startOAuthServers, type OAuthServers } from "../fixtures/oauth-servers.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { tempDir } from "./helpers.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const KEY = "oauth-bounds-backend-0000";
/** the hostile servers' timeoutMs: every OAuth step must end by it */
export const TIMEOUT_MS = 2000;

const TOOLS = { accounts: "mcp__accounts__whoami", demo: "mcp__demo__greet", service: "mcp__service__whoami" } as const;
export type Server = keyof typeof TOOLS;

export interface Rig {
  up: OAuthServers;
  demo: Hostile;
  service: Hostile;
  sink: Hostile;
  lan: Hostile | null;
  dev: DevServer;
  answers: string[];
  /** the session of the last call() */
  lastSession: string;
}

/** The environment startRig() made (one per test file). */
export const rig = {} as Rig;

export async function startRig(): Promise<Rig> {
  const lanIp = Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === "IPv4" && !i.internal)?.address;
  const [up, demo, service, sink, lan, state] = await Promise.all([
    startOAuthServers(),
    startHostile(),
    startHostile(),
    startHostile(),
    lanIp ? startHostile(lanIp) : null,
    tempDir("toolsearch-oauth-bounds-"),
  ]);
  const dev = await startWranglerDev({
    env: "test",
    persistTo: state,
    vars: {
      CATALOG: "oauth@1.0.0.json",
      SERVERS: JSON.stringify({
        accounts: { url: `${up.accounts}/mcp`, auth: "oauth", scopes: ["files:read"], timeoutMs: 10_000 },
        demo: { url: demo.mcp, auth: "oauth", timeoutMs: TIMEOUT_MS },
        service: { url: service.mcp, auth: "oauth", timeoutMs: TIMEOUT_MS, issuer: `${service.url}/` },
      }),
      OPENAI_API_KEY: "unused",
      TOKEN_ENCRYPTION_KEY: "test-token-encryption-key-0123456789abcdef",
      API_KEYS: JSON.stringify({ [KEY]: { tenant: "acme", assertsUser: true } }),
    },
  });
  return Object.assign(rig, { up, demo, service, sink, lan, dev, answers: [], lastSession: "" });
}

export async function stopRig(): Promise<void> {
  await rig.dev?.stop();
  await rig.up?.stop();
  await Promise.all([rig.demo, rig.service, rig.sink, rig.lan].map((h) => h?.close()));
}

export async function api(user: string, method: string, path: string, body?: unknown, base = rig.dev.url) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "x-toolsearch-user": user, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  rig.answers.push(text);
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : null };
}

/** One call of the server's tool in a new session: the result's text, or the error's message. */
export async function call(user: string, server: Server, base = rig.dev.url): Promise<{ status: number; text: string }> {
  const { body: s } = await api(user, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" }, base);
  rig.lastSession = s.id;
  const args = server === "demo" ? { name: user } : {};
  const r = await api(user, "POST", `/v1/sessions/${s.id}/tools/${TOOLS[server]}/call`, { arguments: args }, base);
  return { status: r.status, text: r.status === 200 ? r.body.content[0].text : r.body.error.message };
}

/** The connect link a call answers (reached through `base`, one of the Worker's origins). */
export async function linkFor(user: string, server: Server, base = rig.dev.url): Promise<string> {
  const { status, text } = await call(user, server, base);
  const link = new RegExp(`^connect your ${server} account: (\\S+)$`, "m").exec(text)?.[1];
  expect([status, link?.startsWith(`${base}/connect/`)], text).toEqual([200, true]);
  return link!;
}

/** The servers GET /v1/connections lists for the user (which must answer 200). */
export async function connected(user: string): Promise<string[]> {
  const r = await api(user, "GET", "/v1/connections");
  expect(r.status).toBe(200);
  return (r.body.connections as Json[]).map((c) => c.server);
}

/** The accounts fixture's events of one user and type. */
export async function accountsEvents(user: string, type: string): Promise<Json[]> {
  const log = (await (await fetch(`${rig.up.accounts}/_control/log`)).json()) as Json;
  return (log.events as Json[]).filter((e) => e.user === user && e.type === type);
}

/** The one place a connect link is opened in a browser as `person` (the accounts fixture logs them in); the page's text unescaped. */
export async function openAs(person: string, link: string): Promise<{ status: number; text: string }> {
  // the assertsUser key acts as every person of the tenant: it is the proof the confirmation page asks for
  const page = await browser(rig.up.accounts, person, rig.answers, KEY)(link);
  return { status: page.status, text: page.text.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))) };
}

/** Connect `user` to `server`: a call's link, opened, ends on the connected page. */
export async function connect(user: string, server: Server): Promise<void> {
  const page = await openAs(user, await linkFor(user, server));
  expect(page.text, page.text).toContain("connected; go back to your agent");
}

/** A new link for `server`, opened as `user`: the page refuses with `status` and says `why`. */
export async function refused(user: string, server: Server, why: string, status = 502, base?: string): Promise<void> {
  const page = await openAs(user, await linkFor(user, server, base));
  expect([page.status, page.text]).toEqual([status, expect.stringContaining(why)]);
}
