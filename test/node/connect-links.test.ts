// Connect links attacked (issue 39: R2-H1, R2-L5, R2-L6), end to end in `wrangler dev` with the
// accounts fixture (its own authorization server, a login per browser cookie). A link opens a page
// and starts nothing; a leaked link cannot be completed with another person's key; a page on
// another site (`localhost` against the Worker's `127.0.0.1`: two sites) cannot make a victim's
// Chromium complete the attacker's link, nor frame the page; made-up links and callbacks create no
// storage; DELETE /v1/connections/:server kills the links minted before it; and a rotation of
// TOKEN_ENCRYPTION_KEY (the previous key kept for reading) keeps connections usable and revocable.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../fixtures/browser.ts";
import { startOtherSite, type OtherSite } from "../fixtures/other-site.ts";
import { browser, control as fixtureControl, startOAuthServers, type OAuthServers } from "../fixtures/oauth-servers.ts";
import { sessionFiles } from "../fixtures/session-objects.ts";
import { freePort, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { describeInBrowser, tempDir } from "./helpers.ts";
import { restCall } from "../fixtures/rest-call.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const KEYS = {
  alice: "connect-key-alice-00000",
  bob: "connect-key-bob-0000000",
  mallory: "connect-key-mallory-000",
  dave: "connect-key-dave-000000",
  erin: "connect-key-erin-000000",
  other: "connect-key-other-tenant",
};
type Person = Exclude<keyof typeof KEYS, "other">;
const PEOPLE: Person[] = ["alice", "bob", "mallory", "dave", "erin"];
const K1 = "connect-test-encryption-key-one-0123456789";
const K2 = "connect-test-encryption-key-two-0123456789";

const launched = await launchChromium();
const chromium = typeof launched === "string" ? null : launched;
const describeBrowser = describeInBrowser(launched, "the cross-site connect in Chromium");

let up: OAuthServers;
let dev: DevServer;
let state: string;
let port: number;
let attacker: OtherSite;

const start = (keys: Record<string, string>) =>
  startWranglerDev({
    env: "test",
    persistTo: state,
    port,
    vars: {
      CATALOG: "oauth@1.0.0.json",
      SERVERS: up.servers,
      OPENAI_API_KEY: "unused",
      ...keys,
      API_KEYS: JSON.stringify({
        ...Object.fromEntries(PEOPLE.map((p) => [KEYS[p], { tenant: "acme", user: p }])),
        [KEYS.other]: { tenant: "umbrella", assertsUser: true },
      }),
    },
  });

beforeAll(async () => {
  [up, state, port] = await Promise.all([startOAuthServers(), tempDir("toolsearch-connect-"), freePort()]);
  dev = await start({ TOKEN_ENCRYPTION_KEY: K1 });
  // the attacker's site: whatever page the test puts there
  attacker = await startOtherSite();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await dev?.stop();
  await up?.stop();
  attacker?.close();
});

async function api(who: Person, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, { authorization: `Bearer ${KEYS[who]}`, "content-type": "application/json" }, method, body);
}

async function whoami(who: Person): Promise<string> {
  const s = (await api(who, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).body.id;
  const r = await api(who, "POST", `/v1/sessions/${s}/tools/mcp__accounts__whoami/call`, { arguments: {} });
  expect(r.status).toBe(200);
  return r.body.content[0].text as string;
}

/** A new connect link for `who` (a call of a server they have not connected answers one). */
async function linkFor(who: Person): Promise<string> {
  const text = await whoami(who);
  const link = /^connect your accounts account: (\S+)$/m.exec(text)?.[1];
  expect(link, text).toMatch(new RegExp(`^${dev.url}/connect/accounts/`));
  return link!;
}

/** `person`'s browser (logged in at the authorization server as them), giving `key` on the confirmation page. */
const browse = (person: string, key?: string) => browser(up.accounts, person, [], key);

const control = (path: string, body?: unknown) => fixtureControl(up.accounts, path, body);
const authorized = async (user: string) =>
  ((await control("log")).events as Json[]).filter((e) => e.type === "authorize" && e.user === user);

describe("a link alone connects nothing", () => {
  it("opening it shows a page naming the deployment, the server and the account, that cannot be framed, and starts nothing", async () => {
    const link = await linkFor("alice");
    const res = await fetch(link, { redirect: "manual" });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain(`<b>${new URL(dev.url).host}</b>`);
    expect(html).toContain("Connect your accounts account");
    expect(html).toContain("<b>acme/alice</b>");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.getSetCookie().join()).toMatch(/toolsearch_csrf=[A-Za-z0-9_-]{43}; Path=\/connect; HttpOnly; SameSite=Strict/);
    expect(await authorized("alice")).toEqual([]);
  });

  it("a leaked link: another person's key is refused and nothing starts; its owner's key then connects", async () => {
    const link = await linkFor("bob");
    const stolen = await browse("mallory", KEYS.mallory)(link);
    expect(stolen.status).toBe(403);
    expect(stolen.text).toContain("not one of acme/bob");
    expect(await browse("mallory", KEYS.other)(link)).toMatchObject({ status: 403 }); // another tenant's key that names users
    expect(await browse("mallory", "not-a-key-at-all-000000")(link)).toMatchObject({ status: 401 });
    expect(await authorized("mallory")).toEqual([]);
    expect(await whoami("bob")).toMatch(/^connect your accounts account/);
    const done = await browse("bob", KEYS.bob)(link); // the same link: a refused proof did not use it up
    expect(done.text).toContain("connected; go back to your agent");
    expect(await whoami("bob")).toBe("you are bob (token 1)");
  });

  it("the form is refused from another origin, with no origin and a cross-site fetch, or without the page's own CSRF cookie", async () => {
    const link = await linkFor("mallory");
    const page = await fetch(link);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const cookie = page.headers.getSetCookie()[0]!.split(";")[0]!;
    const post = (headers: Record<string, string>, token = csrf) =>
      fetch(link, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
        body: new URLSearchParams({ key: KEYS.mallory, csrf: token }),
      });
    const own = new URL(dev.url).origin;
    const refused = [
      await post({ cookie, origin: attacker.url.slice(0, -1) }),
      await post({ cookie, "sec-fetch-site": "cross-site" }),
      await post({ origin: own }),
      await post({ cookie, origin: own }, "A".repeat(43)),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403]);
    expect(await refused[0]!.text()).toContain("sent from another site");
    expect(await authorized("mallory")).toEqual([]);
    const ok = await post({ cookie, origin: own });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toMatch(new RegExp(`^${up.accounts}/authorize\\?`));
  });
});

describeBrowser("another site, in the victim's Chromium", () => {
  it("cannot make Carol complete Mallory's link: not by sending her to it, not by posting its form, not by framing it", async () => {
    const link = await linkFor("mallory");
    const context = await chromium!.newContext();
    await context.addCookies([{ name: "fixture_user", value: "carol", url: up.accounts }]); // Carol is logged in at the server
    const page = await context.newPage();
    // 1. a top-level navigation to the link: the confirmation page, naming Mallory's account
    attacker.set(`<script>location = ${JSON.stringify(link)}</script>`);
    await page.goto(attacker.url);
    await page.waitForURL(link);
    expect(await page.textContent("body")).toContain("acme/mallory");
    // 2. a form that posts the link with Mallory's own key, sent from the attacker's site
    attacker.set(
      `<form method="post" action="${link}"><input name="key" value="${KEYS.mallory}"><input name="csrf" value="${"A".repeat(43)}"></form><script>document.forms[0].submit()</script>`,
    );
    await page.goto(attacker.url);
    await page.waitForURL(link);
    expect(await page.textContent("body")).toContain("sent from another site");
    // 3. the page in a frame on the attacker's site: the browser refuses to show it
    attacker.set(`<iframe src="${link}" width="600" height="400"></iframe>`);
    await page.goto(attacker.url);
    await page.waitForTimeout(500);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(
      await frame
        ?.locator("form[data-connect]")
        .count()
        .catch(() => 0),
    ).toBe(0);
    expect(await authorized("carol")).toEqual([]);
    expect(await whoami("mallory")).toMatch(/^connect your accounts account/);
    await context.close();
  });

  it("Alice opens her own link, gives her key and presses the button: connected", async () => {
    const link = await linkFor("alice");
    const context = await chromium!.newContext();
    await context.addCookies([{ name: "fixture_user", value: "alice", url: up.accounts }]);
    const page = await context.newPage();
    await page.goto(link);
    await page.fill('input[name="key"]', KEYS.alice);
    await page.click('button[type="submit"]');
    await page.waitForURL(/\/connect\/callback\?/);
    expect(await page.textContent("body")).toContain("connected; go back to your agent");
    expect(await whoami("alice")).toBe("you are alice (token 1)");
    await context.close();
  });
});

describe("what a link and a flow may still do", () => {
  it("DELETE /v1/connections/:server: no link minted before it connects after it, nor a flow under way", async () => {
    const [early, waiting, used] = [await linkFor("dave"), await linkFor("dave"), await linkFor("dave")];
    await browse("dave", KEYS.dave)(used);
    expect(await whoami("dave")).toBe("you are dave (token 1)");
    // a flow under way: the button pressed, the browser at the authorization server
    const daves = browse("dave", KEYS.dave);
    const stopped = await daves(waiting, `${dev.url}/connect/callback`);
    expect((await api("dave", "DELETE", "/v1/connections/accounts")).body).toMatchObject({ disconnected: true });
    const late = await browse("dave", KEYS.dave)(early);
    expect(late.status).toBe(410);
    expect(late.text).toContain("not known");
    const finished = await daves(stopped.url);
    expect(finished.status).toBe(410);
    expect(await whoami("dave")).toMatch(/^connect your accounts account/);
  });

  it("made-up links, refused forms and forged callbacks create no storage object", async () => {
    const before = await sessionFiles(state);
    const principal = (user: string) => Buffer.from(`acme/${user}`).toString("base64url");
    const secret = (i: number) => String(i).padStart(43, "x");
    for (let i = 0; i < 100; i++) {
      const link = `${dev.url}/connect/accounts/${principal(`ghost${i}`)}.${secret(i)}`;
      expect((await fetch(link)).status).toBe(200); // the page names the account; nothing is looked up
      const form = await fetch(link, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: dev.url, cookie: `toolsearch_csrf=${secret(i)}` },
        body: new URLSearchParams({ key: `guess-${i}-000000000000`, csrf: secret(i) }),
      });
      expect(form.status).toBe(401);
      const forged = `${principal(`ghost${i}`)}.${secret(i)}.${"t".repeat(22)}`;
      const cb = await fetch(`${dev.url}/connect/callback?code=c&state=${forged}`, {
        headers: { cookie: `toolsearch_connect=${secret(i)}` },
      });
      expect(cb.status).toBe(400);
    }
    expect(await sessionFiles(state)).toEqual(before);
  });
});

describe("code mode", () => {
  it("a program's call of a server its user has not connected throws the connect link, and nothing runs upstream", async () => {
    const s = (await api("mallory", "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", code: "on" })).body.id;
    const before = (await control("log")).mcp;
    const r = await api("mallory", "POST", `/v1/sessions/${s}/code`, { code: "return await tools.accounts.whoami()" });
    expect(r.body.error).toMatchObject({ kind: "thrown" });
    expect(r.body.error.message).toMatch(
      new RegExp(`mcp__accounts__whoami: connect your accounts account: ${dev.url}/connect/accounts/\\S+`),
    );
    expect(r.body.calls).toEqual([expect.objectContaining({ tool: "mcp__accounts__whoami", ok: false })]);
    expect((await control("log")).mcp).toBe(before);
  });
});

describe("rotating TOKEN_ENCRYPTION_KEY", () => {
  it("with the previous key kept, connections keep working and are still revoked; once read they open with the new key alone", async () => {
    await browse("erin", KEYS.erin)(await linkFor("erin"));
    await browse("dave", KEYS.dave)(await linkFor("dave"));
    await dev.stop();
    dev = await start({ TOKEN_ENCRYPTION_KEY: K2, TOKEN_ENCRYPTION_KEY_PREVIOUS: K1 });
    expect(await whoami("dave")).toMatch(/^you are dave/);
    const deleted = await api("erin", "DELETE", "/v1/connections/accounts");
    expect(deleted.body).toEqual({ server: "accounts", disconnected: true, revoked: true });
    const revoked = ((await control("log")).events as Json[]).filter((e) => e.type === "revoke" && e.user === "erin");
    expect(revoked.map((e) => e.kind).sort()).toEqual(["access", "refresh"]);
    await dev.stop();
    dev = await start({ TOKEN_ENCRYPTION_KEY: K2 });
    expect(await whoami("dave")).toMatch(/^you are dave/); // sealed again with K2 when it was read
  }, 120_000);
});
