// The per-user OAuth steps under attack (issue 39: R2-M1, R2-M2, R2-L1, R2-L3, R2-L4), end to end
// in `wrangler dev` (oauth-bounds-rig.ts): SERVERS points `accounts` at the honest accounts
// fixture, `demo` at a malicious MCP server with its own authorization server
// (test/fixtures/oauth-hostile.ts), and `service` at another one whose issuer SERVERS pins. Each
// test makes a hostile server misbehave and checks what a user would: the connect page's
// refusal, the time it took, what reached which server, what GET /v1/connections says. Every
// user is new to the test that uses it (what a principal recorded of a server stays with it), and
// every answer is kept for the search for a remote body.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { endless, send, type Hostile } from "../fixtures/oauth-hostile.ts";
import type { OAuthServers } from "../fixtures/oauth-servers.ts";
import type { DevServer } from "../fixtures/wrangler-dev.ts";
import { accountsEvents, api, call, connect, connected, linkFor, openAs, refused } from "./oauth-bounds-rig.ts";
import { rig, startRig, stopRig, TIMEOUT_MS } from "./oauth-bounds-rig.ts";

const CAP = 256 * 1024; // OAUTH_ANSWER_MAX_BYTES
const SECRET = "SECRET-INTERNAL-0042";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let up: OAuthServers;
let demo: Hostile; // SERVERS demo: no issuer configured
let service: Hostile; // SERVERS service: issuer pinned to its own
let sink: Hostile; // where redirects point: nothing may reach it
let lan: Hostile | null; // a listener on a non-loopback address, if the machine has one
let dev: DevServer;

beforeAll(async () => void ({ up, demo, service, sink, lan, dev } = await startRig()), 120_000);
afterAll(stopRig);
beforeEach(() => [demo, service, sink].forEach((h) => h.reset()));

const since = (h: Hostile, mark: number) => h.log.slice(mark);
const refreshGrant = (body: string) => new URLSearchParams(body).get("grant_type") === "refresh_token";

describe("R2-M1: one authorization server per SERVERS entry", () => {
  it("a server whose metadata names the accounts server's authorization server is refused once accounts is connected; no token reaches it", async () => {
    await connect("mia", "accounts");
    expect((await call("mia", "accounts")).text).toBe("you are mia (token 1)");
    demo.tweak.authServer = `${up.accounts}/`;
    const mark = demo.log.length;
    await refused("mia", "demo", "demo: OAuth discovery failed: its metadata names the authorization server of the SERVERS entry accounts");
    // the browser was never sent to accounts for demo, and no request to the mix-up server carried a token
    expect(await accountsEvents("mia", "authorize")).toHaveLength(1);
    expect(since(demo, mark).filter((r) => r.authorization)).toEqual([]);
    expect(await connected("mia")).toEqual(["accounts"]);
  });

  it("SERVERS issuer: naming another entry's pinned issuer, or not the entry's own, is refused for a user who never connected", async () => {
    const marks = [demo.log.length, service.log.length];
    demo.tweak.authServer = `${service.url}/`;
    await refused("oli", "demo", "the authorization server of the SERVERS entry service");
    service.tweak.authServer = `${demo.url}/`;
    await refused(
      "oli",
      "service",
      `service: OAuth discovery failed: its authorization server is not the one SERVERS pins (service.issuer = ${service.url}/)`,
    );
    const reached = [...since(demo, marks[0]!), ...since(service, marks[1]!)].map((r) => r.path.split("?")[0]);
    expect(reached.filter((p) => p === "/register" || p === "/authorize" || p === "/token")).toEqual([]);
  });

  it("RFC 8414 section 3.3: metadata whose issuer is not the URL it was fetched for is refused", async () => {
    demo.tweak.metadata = { issuer: `${up.accounts}/` };
    await refused("pat", "demo", "names an issuer other than its own URL (RFC 8414 section 3.3)");
  });

  it("the issuer recorded at the first connect: the entry naming another authorization server later is refused", async () => {
    // a user new to demo may connect through its second issuer (/other): the refusal below is the pin's
    demo.tweak.authServer = `${demo.url}/other`;
    await connect("ria", "demo");
    demo.reset();
    await connect("pia", "demo");
    expect((await call("pia", "demo")).text).toMatch(/^hostile: eve \(token \d+\)$/);
    expect((await api("pia", "DELETE", "/v1/connections/demo")).status).toBe(200);
    demo.tweak.authServer = `${demo.url}/other`;
    // a link from another origin of the Worker: another redirect URI, so discovery runs again
    const why = `its authorization server is not the one recorded at the first connect (${demo.url}/)`;
    await refused("pia", "demo", why, 502, dev.url.replace("127.0.0.1", "localhost"));
  });

  it("RFC 9207: a callback with a wrong iss, or none where the metadata promises one, is refused and its code never exchanged", async () => {
    demo.tweak.metadata = { authorization_response_iss_parameter_supported: true };
    demo.tweak.iss = "https://evil.example/";
    const mark = demo.log.length;
    await refused("sam", "demo", "names another authorization server (RFC 9207 iss)", 410);
    delete demo.tweak.iss;
    await refused("sam", "demo", "lacks the iss its authorization server promises", 410);
    expect(since(demo, mark).filter((r) => r.path === "/token")).toEqual([]);
    expect(await connected("sam")).toEqual([]);
    demo.tweak.iss = `${demo.url}/`;
    await connect("sam", "demo");
  });
});

describe("R2-M2: every OAuth fetch is bounded", () => {
  it("metadata without end is refused at the cap, at once, and the rest is never sent", async () => {
    let stream = { sent: 0, hungUp: false }; // 64 KiB every 10 ms: 6.4 MB/s, for ever
    const wellKnown = "/.well-known/oauth-protected-resource";
    demo.intercept = (req, res) => !!req.url?.startsWith(wellKnown) && !!(stream = endless(res, 64 * 1024, 10));
    const link = await linkFor("tom", "demo");
    const started = Date.now();
    const page = await openAs("tom", link);
    expect(Date.now() - started).toBeLessThan(5000); // 300 MiB of it would take 48 s
    expect([page.status, page.text]).toEqual([
      502,
      expect.stringContaining(`discovery failed: the answer (HTTP 200) is over ${CAP} bytes`),
    ]);
    await sleep(200);
    expect(stream.hungUp).toBe(true); // the Worker stopped reading and hung up
    expect(stream.sent).toBeLessThan(16 * 1024 * 1024);
  });

  it("slow metadata ends within timeoutMs, and the same link works once the server behaves", async () => {
    // a byte every 200 ms, for ever: no read ever waits long, only the step's deadline ends it
    demo.intercept = (req, res) => !!req.url?.startsWith("/.well-known/oauth-authorization-server") && !!endless(res, 1, 200);
    const link = await linkFor("uma", "demo");
    const started = Date.now();
    const page = await openAs("uma", link);
    const took = Date.now() - started;
    expect([page.status, page.text]).toEqual([502, expect.stringContaining(`discovery failed: no answer within ${TIMEOUT_MS} ms`)]);
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(took).toBeLessThan(TIMEOUT_MS + 2500);
    demo.reset();
    expect((await openAs("uma", link)).text).toContain("connected; go back to your agent");
    expect((await call("uma", "demo")).text).toMatch(/^hostile: eve \(token \d+\)$/);
  });

  it("a stalled refresh: concurrent calls in three sessions fail within the deadline, and the next refresh works", async () => {
    demo.tweak.tokens = { expires_in: 2 }; // refreshed from 1 s on
    await connect("vic", "demo");
    await sleep(1200);
    let refreshes = 0;
    demo.intercept = (req, _res, body) => req.url === "/token" && refreshGrant(body) && ++refreshes > 0; // never answered
    const started = Date.now();
    const calls = await Promise.all([1, 2, 3].map(() => call("vic", "demo")));
    const took = Date.now() - started;
    for (const c of calls)
      expect(c).toEqual({ status: 502, text: expect.stringContaining(`demo: OAuth refresh failed: no answer within ${TIMEOUT_MS} ms`) });
    expect(took).toBeLessThan(TIMEOUT_MS + 2500);
    expect(refreshes).toBe(1); // one refresh, shared by the three
    demo.intercept = null;
    expect((await call("vic", "demo")).text).toMatch(/^hostile: eve \(token \d+\)$/);
  });

  it("a redirecting metadata endpoint is not followed", async () => {
    demo.intercept = (req, res) =>
      !!req.url?.startsWith("/.well-known/oauth-authorization-server") &&
      send(res, 302, { location: `${sink.url}/.well-known/oauth-authorization-server` });
    await refused("wes", "demo", "demo: OAuth discovery failed: the server answered a redirect (HTTP 302), which is not followed");
    expect(sink.log).toEqual([]);
  });

  it("an http URL on a host that is not loopback is refused before anything is sent there", async () => {
    const target = lan?.url ?? "http://192.0.2.1:9";
    demo.tweak.authServer = `${target}/`;
    await refused("xia", "demo", "demo: OAuth discovery failed: a plain http URL on a host that is not loopback was refused");
    demo.reset();
    demo.tweak.metadata = { token_endpoint: `${target}/token` };
    await refused("xia", "demo", "the authorization server's token_endpoint is not an https URL");
    if (!lan) return console.warn("no non-loopback IPv4 address: the http refusal was checked, not that the target was reachable");
    expect(lan.log).toEqual([]);
    expect((await fetch(`${lan.url}/.well-known/oauth-authorization-server`)).status).toBe(200); // it was reachable
  });
});

describe("R2-L1: no remote body in any answer", () => {
  it(`bodies carrying ${SECRET} at discovery, registration, exchange and refresh: answers name the step and the status`, async () => {
    let served = 0;
    const fail = (path: string, status: number, body: string, when = (_b: string) => true) =>
      (demo.intercept = (req, res, sent) => {
        if (req.url?.split("?")[0] !== path || !when(sent)) return false;
        served++;
        return send(res, status, { "content-type": body.startsWith("{") ? "application/json" : "text/plain" }, body);
      });
    const described = (error: string) => JSON.stringify({ error, error_description: `${SECRET}: db01.internal:5432` });
    fail("/.well-known/oauth-authorization-server", 500, `<h1>${SECRET}</h1>`);
    await refused("yan", "demo", "demo: OAuth discovery failed: HTTP 500");
    fail("/register", 400, described("invalid_client_metadata"));
    await refused("yan", "demo", "demo: OAuth registration failed: HTTP 400 (invalid_client_metadata)");
    fail("/token", 400, `internal page: ${SECRET}`);
    await refused("yan", "demo", "demo: OAuth exchange failed: HTTP 400 (server_error)");
    demo.intercept = null;
    demo.tweak.tokens = { expires_in: 2 };
    await connect("yan", "demo");
    await sleep(1200);
    fail("/token", 500, described("server_error"), refreshGrant);
    expect(await call("yan", "demo")).toEqual({
      status: 502,
      text: expect.stringContaining("demo: OAuth refresh failed: HTTP 500 (server_error)"),
    });
    expect(served).toBe(4);
    const { body: audit } = await api("yan", "GET", `/v1/sessions/${rig.lastSession}/audit`);
    expect(JSON.stringify(audit.events)).toContain("demo: OAuth refresh failed: HTTP 500"); // the audit row says as much, and no more
    expect([...rig.answers, dev.log()].filter((a) => a.includes(SECRET))).toEqual([]);
  });
});

describe("R2-L3: what token endpoints send is checked before it is stored", () => {
  it("expires_in 1e13 is refused at the exchange and nothing is stored; GET /v1/connections stays 200", async () => {
    demo.tweak.tokens = { expires_in: 1e13 };
    const why = "its expires_in is not a whole number of seconds from 1 to 31536000";
    await refused("zed", "demo", `demo: OAuth exchange failed: the token endpoint's answer was refused: ${why}`);
    expect(await connected("zed")).toEqual([]);
    await linkFor("zed", "demo"); // the call asks to connect again
  });

  it("an access token with CR/LF is refused at the exchange and at a refresh; calls answer a link or the refusal, never a 502 of every call", async () => {
    demo.tweak.tokens = { access_token: "hat-x\r\nx-injected: 1" };
    await refused("amy", "demo", "its access_token is not 1 to 8192 printable ASCII characters");
    expect(await connected("amy")).toEqual([]);
    await linkFor("amy", "demo");
    demo.tweak.tokens = { expires_in: 2 };
    await connect("amy", "demo");
    await sleep(1200);
    demo.tweak.tokens = { expires_in: 2, access_token: "hat-y\r\n" };
    expect(await call("amy", "demo")).toEqual({
      status: 502,
      text: expect.stringContaining("demo: OAuth refresh failed: the token endpoint's answer was refused"),
    });
    expect(await connected("amy")).toEqual(["demo"]);
    demo.tweak.tokens = { expires_in: 3600 };
    expect((await call("amy", "demo")).text).toMatch(/^hostile: eve \(token \d+\)$/);
  });
});

describe("R2-L4: revocation", () => {
  it("a revocation endpoint that redirects is not followed (revoked: false), and one that stalls ends within timeoutMs", async () => {
    await connect("bea", "demo");
    demo.intercept = (req, res) => req.url === "/revoke" && send(res, 307, { location: `${sink.url}/revoke` });
    expect(await api("bea", "DELETE", "/v1/connections/demo")).toEqual({
      status: 200,
      body: { server: "demo", disconnected: true, revoked: false },
    });
    expect(sink.log).toEqual([]);
    demo.intercept = null;
    await connect("bea", "demo");
    demo.intercept = (req) => req.url === "/revoke"; // never answered
    const started = Date.now();
    expect((await api("bea", "DELETE", "/v1/connections/demo")).body).toMatchObject({ disconnected: true, revoked: false });
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 2500);
  });
});
