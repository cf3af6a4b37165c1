// The approval page in Chromium, end to end in `wrangler dev` with the edge fixture server: a call
// that needs a yes answers its link; the person opens it, sees the tool, its server and the
// arguments, gives their key and presses Approve; the same call then runs once. Refused on the
// way: a second decision (the link is used), another principal's key, a form posted from another
// site (`localhost` against the Worker's `127.0.0.1`: two sites).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../fixtures/browser.ts";
import { startEdgeServers, type EdgeServers } from "../fixtures/edge-servers.ts";
import { startEdgeWorker } from "../fixtures/edge-worker.ts";
import { startOtherSite, type OtherSite } from "../fixtures/other-site.ts";
import type { DevServer } from "../fixtures/wrangler-dev.ts";
import { restCall } from "../fixtures/rest-call.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
const KEYS = { alice: "approval-key-alice-000000", bob: "approval-key-bob-00000000" };
const ADD = "mcp__fixture__counter_add";

const launched = await launchChromium();
const chromium = typeof launched === "string" ? null : launched;
if (typeof launched === "string") console.warn(`SKIPPED: the approval page in Chromium: ${launched}`);

let servers: EdgeServers;
let dev: DevServer;
let other: OtherSite;

beforeAll(async () => {
  servers = await startEdgeServers();
  dev = await startEdgeWorker("toolsearch-approval-", {
    CATALOG: "edge@1.0.0.json",
    SERVERS: JSON.stringify({ fixture: { url: servers.fixture, headers: { authorization: "Bearer ${EDGE_TEST_TOKEN}" } } }),
    POLICY: JSON.stringify({ approval: { default: { ask: [ADD] } } }),
    OPENAI_API_KEY: "unused",
    API_KEYS: JSON.stringify({ [KEYS.alice]: { tenant: "acme", user: "alice" }, [KEYS.bob]: { tenant: "acme", user: "bob" } }),
  });
  other = await startOtherSite();
}, 120_000);

afterAll(async () => {
  await chromium?.close();
  await dev?.stop();
  await servers?.stop();
  other?.close();
});

async function api(who: keyof typeof KEYS, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return restCall(`${dev.url}${path}`, { authorization: `Bearer ${KEYS[who]}`, "content-type": "application/json" }, method, body);
}
const adds = async () =>
  (((await (await fetch(`${servers.fixtureBase}/_control/stats`)).json()) as Json).calls as Json[]).filter((c) => c.tool === "counter_add")
    .length;

describe.skipIf(!chromium)("the approval page in Chromium", () => {
  it("shows the call; Approve with the principal's key; the same call then runs once; the link is then used", async () => {
    const id = (await api("alice", "POST", "/v1/sessions", { model: "gpt-4o" })).body.id as string;
    const asked = await api("alice", "POST", `/v1/sessions/${id}/tools/${ADD}/call`, { arguments: { n: 4 } });
    expect(asked.status).toBe(409);
    const link = asked.body.error.approval.link as string;
    expect(link.startsWith(`${dev.url}/approve/`)).toBe(true);
    const before = await adds();

    const context = await chromium!.newContext();
    const page = await context.newPage();
    // another site's form, posting Alice's own key: refused, nothing decided
    await page.goto(link);
    other.set(
      `<form method="post" action="${link}"><input name="key" value="${KEYS.alice}"><input name="csrf" value="${"A".repeat(43)}"><input name="decision" value="approve"></form><script>document.forms[0].submit()</script>`,
    );
    await page.goto(other.url);
    await page.waitForURL(link);
    expect(await page.textContent("body")).toContain("sent from another site");
    // Bob's key on Alice's page: refused
    await page.goto(link);
    const body = await page.textContent("body");
    expect(body).toContain(ADD);
    expect(body).toContain("fixture");
    expect(body).toContain('{"n":4}');
    await page.fill('input[name="key"]', KEYS.bob);
    await page.click('button[value="approve"]');
    expect(await page.textContent("body")).toContain("the link was made for another account");
    expect((await api("alice", "GET", "/v1/approvals")).body.approvals).toHaveLength(1);
    // Alice approves
    await page.goto(link);
    await page.fill('input[name="key"]', KEYS.alice);
    await page.fill('input[name="reason"]', "yes, add it");
    await page.click('button[value="approve"]');
    expect(await page.textContent("body")).toContain("You approved mcp__fixture__counter_add");
    const ran = await api("alice", "POST", `/v1/sessions/${id}/tools/${ADD}/call`, { arguments: { n: 4 } });
    expect(ran.status).toBe(200);
    expect(await adds()).toBe(before + 1);
    // the link again: it shows what became of it, and offers no buttons
    await page.goto(link);
    expect(await page.textContent("body")).toContain("This approval is approved");
    expect(await page.locator("form[data-approve]").count()).toBe(0);
    const audit = (await api("alice", "GET", `/v1/sessions/${id}/audit?type=approval`)).body.events as Json[];
    expect(audit.find((e) => e.outcome === "approved")!.detail).toMatch(/\(link\): yes, add it$/);
    await context.close();
  });
});
