// Per-user OAuth to upstream MCP servers, end to end in `wrangler dev`: the MCP SDK's own example
// server (simpleStreamableHttp.js --oauth, its in-memory authorization server) and the accounts
// fixture on the SDK's mcpAuthRouter (refresh, revocation, a login per browser). A call that needs
// the user's authorization answers a connect link; a "browser" (fetch with a cookie jar, following
// every redirect by hand) opens it, logs in at the authorization server as its person, and lands
// on the Worker's callback; the same call then runs with that user's token. Alice and Bob of one
// tenant never share a token; refresh before expiry (once for concurrent calls); a revoked grant
// asks to connect again; DELETE disconnects and revokes; a link reused, expired, or completed in
// another principal's browser is refused. Then every token the fixture issued is searched for in
// wrangler's log, every answer, and the D1 and Durable Object SQLite files: none is found.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browser as browseAs,
  control as fixtureControl,
  oauthWorkerVars,
  startOAuthServers,
  type OAuthServers,
} from "../fixtures/oauth-servers.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { launchChromium } from "../fixtures/browser.ts";
import { describeInBrowser, tempDir } from "./helpers.ts";
import { restCall } from "../fixtures/rest-call.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const KEYS = { alice: "oauth-key-alice-0000000", bob: "oauth-key-bob-000000000", backend: "oauth-key-backend-000000" };
const LINK_TTL_S = 6;

const launched = await launchChromium();
const chromium = typeof launched === "string" ? null : launched;
const describeBrowser = describeInBrowser(launched, "the page's connections panel");

let up: OAuthServers;
let llm: ScriptedLLM;
let dev: DevServer;
let state: string;
const answers: string[] = [];

beforeAll(async () => {
  [up, llm, state] = await Promise.all([startOAuthServers(), startScriptedLLM(), tempDir("toolsearch-oauth-")]);
  dev = await startWranglerDev({
    env: "test",
    persistTo: state,
    vars: oauthWorkerVars(
      up,
      llm.url,
      {
        [KEYS.alice]: { tenant: "acme", user: "alice" },
        [KEYS.bob]: { tenant: "acme", user: "bob" },
        [KEYS.backend]: { tenant: "acme", assertsUser: true },
      },
      { CONNECT_LINK_TTL_SECONDS: String(LINK_TTL_S) },
    ),
  });
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await dev?.stop();
  await llm?.close();
  await up?.stop();
});

type Who = keyof typeof KEYS | { asserted: string };
function headers(who: Who): Record<string, string> {
  const key = typeof who === "string" ? KEYS[who] : KEYS.backend;
  return {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    ...(typeof who === "string" ? {} : { "x-toolsearch-user": who.asserted }),
  };
}

async function api(who: Who, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, headers(who), method, body, (t) => answers.push(t));
}

const sessions = new Map<string, string>();
async function session(who: Who): Promise<string> {
  const k = JSON.stringify(who);
  if (!sessions.has(k)) sessions.set(k, (await api(who, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body.id);
  return sessions.get(k)!;
}

async function call(who: Who, tool: string, args: Record<string, unknown> = {}) {
  const r = await api(who, "POST", `/v1/sessions/${await session(who)}/tools/${tool}/call`, { arguments: args });
  expect(r.status).toBe(200);
  return r.body.content[0].text as string;
}

const LINK_RE = /^connect your (\w+) account: (\S+)$/m;
function linkOf(text: string, server: string): string {
  const m = LINK_RE.exec(text);
  expect(m?.[1], text).toBe(server);
  expect(m![2]!.startsWith(`${dev.url}/connect/`)).toBe(true);
  return m![2]!;
}

// the person's browser; on the confirmation page it gives the key that acts as the person: their own, else the backend's (assertsUser)
const browser = (person: string) => ({ get: browseAs(up.accounts, person, answers, Reflect.get(KEYS, person) ?? KEYS.backend) });

const control = (path: string, body?: unknown) => fixtureControl(up.accounts, path, body);
const events = async (user: string, type: string) =>
  ((await control("log")).events as Json[]).filter((e) => e.user === user && e.type === type);

describe("connect on first use", () => {
  it("Alice gets a link, connects in her browser, and the same call runs with her token; Bob, same tenant, gets his own", async () => {
    const first = await call("alice", "mcp__accounts__whoami");
    const aliceLink = linkOf(first, "accounts");
    const bobLink = linkOf(await call("bob", "mcp__accounts__whoami"), "accounts");
    expect(bobLink).not.toBe(aliceLink);

    const page = await browser("alice").get(aliceLink);
    expect(page).toMatchObject({ status: 200, url: expect.stringContaining(`${dev.url}/connect/callback?`) });
    expect(page.text).toContain("connected; go back to your agent");
    const [authorized] = await events("alice", "authorize");
    expect(authorized).toMatchObject({ resource: `${up.accounts}/mcp`, pkce: true });
    expect(await call("alice", "mcp__accounts__whoami")).toBe("you are alice (token 1)");

    // Bob is not connected by Alice's connection
    linkOf(await call("bob", "mcp__accounts__whoami"), "accounts");
    await browser("bob").get(bobLink);
    expect(await call("bob", "mcp__accounts__whoami")).toBe("you are bob (token 1)");
    expect(await call("alice", "mcp__accounts__whoami")).toBe("you are alice (token 1)");

    const audit = (await api("alice", "GET", `/v1/sessions/${await session("alice")}/audit`)).body.events as Json[];
    expect(audit.filter((e) => e.type === "call").map((e) => [e.outcome, e.user])).toEqual([
      ["ok", "alice"],
      ["ok", "alice"],
      ["needs_connection", "alice"],
    ]);
    // another user's session id is not theirs to use
    expect((await api("bob", "GET", `/v1/sessions/${await session("alice")}`)).status).toBe(404);
  });

  it("the MCP SDK's example server: discovery from its 401, dynamic registration, PKCE, resource; then greet works", async () => {
    const link = linkOf(await call("alice", "mcp__demo__greet", { name: "Alice" }), "demo");
    const page = await browser("alice").get(link);
    expect(page.status).toBe(200);
    expect(await call("alice", "mcp__demo__greet", { name: "Alice" })).toBe("Hello, Alice!");
  });

  it("an edge round of the chat endpoint: the model gets the link as the tool's result, and once connected the answer", async () => {
    const kim = { asserted: "kim" };
    const ask = async () => {
      const res = await fetch(`${dev.url}/v1/chat/completions`, {
        method: "POST",
        headers: { ...headers(kim), "x-toolsearch-execution": "edge" },
        body: JSON.stringify({ model: "gpt-4o", messages: [{ role: "user", content: `whoami: who am I? (${Math.random()})` }] }),
      });
      const text = await res.text();
      answers.push(text);
      return JSON.parse(text).choices[0].message.content as string;
    };
    expect(await ask()).toMatch(/^Done with mcp__accounts__whoami: Error: connect your accounts account: /);
    // what the model was given as the tool's result: the whole link
    const toolMessage = llm.requests.at(-1)!.body.messages.at(-1)!;
    expect(toolMessage.role).toBe("tool");
    await browser("kim").get(linkOf(String(toolMessage.content).replace(/^Error: /, ""), "accounts"));
    expect(await ask()).toBe("Done with mcp__accounts__whoami: you are kim (token 1)");
  });

  it("the MCP gateway answers the link as callTool's result, and the listing does not depend on connection state", async () => {
    const carol = { asserted: "carol" };
    const transport = new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`), { requestInit: { headers: headers(carol) } });
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(transport);
    const listed = JSON.stringify(await client.listTools());
    const r = (await client.callTool({ name: "callTool", arguments: { name: "mcp__accounts__whoami", arguments: {} } })) as Json;
    answers.push(JSON.stringify(r));
    linkOf(r.content[0].text, "accounts");
    await client.close();
    // Alice (connected) and Carol (not) see the same tools list and, in new sessions, the same prompt
    const alice = new StreamableHTTPClientTransport(new URL(`${dev.url}/mcp`), { requestInit: { headers: headers("alice") } });
    const other = new Client({ name: "oauth-test", version: "1.0.0" });
    await other.connect(alice);
    expect(JSON.stringify(await other.listTools())).toBe(listed);
    await other.close();
    const prompts = await Promise.all(
      (["alice", carol] as Who[]).map(async (w) => {
        const id = (await api(w, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body.id;
        return (await api(w, "GET", `/v1/sessions/${id}/prompt`)).body;
      }),
    );
    expect(prompts[0]).toEqual(prompts[1]);
  });
});

describe("tokens", () => {
  it("a short-lived token is refreshed before it expires, once for concurrent calls", async () => {
    const dave = { asserted: "dave" };
    await control("ttl", { seconds: 4 });
    await browser("dave").get(linkOf(await call(dave, "mcp__accounts__whoami"), "accounts"));
    expect(await call(dave, "mcp__accounts__whoami")).toBe("you are dave (token 1)");
    await new Promise((r) => setTimeout(r, 2300)); // refreshed at half its life: 2 s before expiry
    const all = await Promise.all([1, 2, 3, 4].map(() => call(dave, "mcp__accounts__whoami")));
    expect(all).toEqual(Array(4).fill("you are dave (token 2)"));
    expect(await events("dave", "refresh")).toHaveLength(1);
    expect(await events("dave", "rejected")).toHaveLength(0);
    await control("ttl", { seconds: 3600 });
    const list = (await api(dave, "GET", "/v1/connections")).body;
    expect(list).toMatchObject({ oauthServers: ["accounts", "demo"], connections: [{ server: "accounts", scopes: ["files:read"] }] });
  });

  it("a revoked grant: the refresh is refused (invalid_grant), the connection dropped, and the call asks to connect again", async () => {
    const erin = { asserted: "erin" };
    await browser("erin").get(linkOf(await call(erin, "mcp__accounts__whoami"), "accounts"));
    expect(await call(erin, "mcp__accounts__whoami")).toBe("you are erin (token 1)");
    await control("revoke", { user: "erin" });
    linkOf(await call(erin, "mcp__accounts__whoami"), "accounts");
    expect(await events("erin", "rejected")).toHaveLength(1); // the 401, then the refused refresh
    expect((await api(erin, "GET", "/v1/connections")).body.connections).toEqual([]);
  });

  it("DELETE /v1/connections/:server forgets the connection and revokes its tokens at the server", async () => {
    const r = await api("bob", "DELETE", "/v1/connections/accounts");
    expect(r).toEqual({ status: 200, body: { server: "accounts", disconnected: true, revoked: true } });
    expect((await events("bob", "revoke")).map((e) => e.kind).sort()).toEqual(["access", "refresh"]);
    linkOf(await call("bob", "mcp__accounts__whoami"), "accounts");
    expect((await api("bob", "DELETE", "/v1/connections/accounts")).status).toBe(404);
    expect((await api("alice", "GET", "/v1/connections")).body.connections.map((c: Json) => c.server)).toEqual(["accounts", "demo"]);
  });
});

describe("links that are refused", () => {
  it("a link opened twice: the second time is refused", async () => {
    const link = linkOf(await call({ asserted: "frank" }, "mcp__accounts__whoami"), "accounts");
    expect((await browser("frank").get(link)).status).toBe(200);
    const again = await browser("frank").get(link);
    expect(again.status).toBe(410);
    expect(again.text).toContain("used already");
  });

  it("an expired link is refused", async () => {
    const link = linkOf(await call({ asserted: "gina" }, "mcp__accounts__whoami"), "accounts");
    await new Promise((r) => setTimeout(r, LINK_TTL_S * 1000 + 500));
    const page = await browser("gina").get(link);
    expect(page.status).toBe(410);
    expect(page.text).toContain("expired");
    linkOf(await call({ asserted: "gina" }, "mcp__accounts__whoami"), "accounts");
  });

  it("a callback completed in another principal's browser is refused; in the browser that started it, it works", async () => {
    const hank = { asserted: "hank" };
    const hanks = browser("hank");
    const stopped = await hanks.get(linkOf(await call(hank, "mcp__accounts__whoami"), "accounts"), `${dev.url}/connect/callback`);
    const ivy = browser("ivy");
    await ivy.get(linkOf(await call({ asserted: "ivy" }, "mcp__accounts__whoami"), "accounts"), `${dev.url}/connect/callback`);
    const stolen = await ivy.get(stopped.url);
    expect(stolen.status).toBe(403);
    expect(stolen.text).toContain("started in another browser");
    linkOf(await call(hank, "mcp__accounts__whoami"), "accounts");
    expect((await hanks.get(stopped.url)).status).toBe(200);
    expect(await call(hank, "mcp__accounts__whoami")).toBe("you are hank (token 1)");
  });
});

describeBrowser("the page", () => {
  it("shows the key's own connections; Disconnect forgets one", async () => {
    const page = await chromium!.newPage();
    await page.goto(`${dev.url}/`);
    await page.fill("#api-key", KEYS.alice);
    await page.press("#api-key", "Enter");
    const rows = page.locator(".connections-panel tbody tr");
    await expect
      .poll(() => rows.allInnerTexts())
      .toEqual([expect.stringMatching(/^accounts\tfiles:read\t/), expect.stringMatching(/^demo\t/)]);
    answers.push(await page.content());
    await page.click('.connections-panel button[data-server="demo"]');
    await expect.poll(() => rows.count()).toBe(1);
    expect((await api("alice", "GET", "/v1/connections")).body.connections.map((c: Json) => c.server)).toEqual(["accounts"]);
    answers.push(await page.content());
    await page.close();
  });
});

describe("secrecy", () => {
  it("no token the server issued is in wrangler's log, any answer, or the D1 and Durable Object SQLite files", async () => {
    const tokens = (await control("log")).tokens as string[];
    expect(tokens.length).toBeGreaterThan(10);
    const files = (await readdir(state, { recursive: true })).filter((f) => /\.sqlite(-wal)?$/.test(f));
    expect(files.some((f) => f.includes("d1"))).toBe(true);
    expect(files.some((f) => f.includes("SessionDO"))).toBe(true);
    const haystacks = [dev.log(), up.log(), ...answers, ...(await Promise.all(files.map((f) => readFile(join(state, f), "latin1"))))];
    const found = tokens.filter((t) => haystacks.some((h) => h.includes(t)));
    expect(found).toEqual([]);
  });
});
