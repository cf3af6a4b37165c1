// Secrets stay in (issue 30 M4, L4), tried as an attacker would. M4: an upstream MCP server that
// puts the SERVERS secret it was sent into a notifications/progress message (the fixture's whoami
// does, given a progressToken) gets it to the /mcp client redacted, like the result. L4: a server
// that answers a redirect to another origin (the fixture's /redirect-* paths, to a second loopback
// port that records what reaches it) never gets the secret headers sent there: not by an MCP call,
// not by the DELETE that closes an upstream session; and a Messages upstream's redirect is a 502
// with nothing sent after it. Other test files use the same fixture, so its records are read by a
// tag in the path that only this file uses.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { callRemote, closeRemote } from "../../worker/session/mcp-client.ts";
import { UpstreamFailure } from "../../worker/session/upstream-failure.ts";
import { callWith, fixture, fixtureCalls, upstreamOf, type Json } from "./helpers.ts";
import { connect, rpc } from "./mcp-rig.ts";

const TOKEN = String(env.EDGE_TEST_TOKEN);
const BASE_URL = inject("edgeFixture");

/** The fixture as a session object sees it (worker/session/mcp-client.ts), at `path` of its origin, with the secret in two headers. */
const fixtureAt = (path: string) => ({ url: `${BASE_URL}${path}`, headers: {}, timeoutMs: 3000 });
const SECRET_HEADERS = { authorization: `Bearer ${TOKEN}`, "x-api-key": TOKEN };

/** What the fixture redirected, and what reached the redirects' target, under `tag`. */
async function redirects(tag: string) {
  const stats = await fixture("stats");
  return {
    redirected: (stats.redirected as string[]).filter((r) => r.includes(tag)),
    atTarget: (stats.atTarget as Json[]).filter((r) => r.url.includes(tag)),
  };
}

describe("M4: progress messages are redacted like results", () => {
  it("a server that echoes its secret in notifications/progress reaches the /mcp client as [redacted]", async () => {
    const { id } = await connect();
    const r = await rpc(
      {
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "mcp__fixture__whoami", arguments: {}, _meta: { progressToken: "p-m4" } },
      },
      { "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" },
    );
    // the server did get the secret, and sent it back in both the progress message and the result
    expect((await fixtureCalls(await upstreamOf(id))).map((c) => [c.tool, c.authorization])).toEqual([["whoami", `Bearer ${TOKEN}`]]);
    expect(r.messages.map((m) => m.method ?? "result")).toEqual(["notifications/progress", "result"]);
    expect(r.messages[0].params).toEqual({ progressToken: "p-m4", progress: 1, message: "authorization: Bearer [redacted]" });
    expect(r.messages[1].result.content[0].text).toBe("authorization: Bearer [redacted]");
    expect(JSON.stringify(r.messages)).not.toContain(TOKEN);
  });
});

describe("L4: secret headers never follow a redirect", () => {
  // the session object's own client (SERVERS is its binding's, so the URL is given here). The MCP
  // SDK's transport also refuses a cross-origin redirect itself (redirectPolicy "same-origin"), so
  // this holds by two layers; the DELETE and the Messages upstream have only `redirect: "manual"`.
  it("an MCP server answering 307 to another origin: the call fails, nothing reaches the target", async () => {
    const tag = `l4-call-${crypto.randomUUID()}`;
    const call = callRemote(fixtureAt(`/redirect-307/${tag}/mcp`), { ...SECRET_HEADERS }, null, { tool: "whoami", args: {} });
    await expect(call).rejects.toThrow(UpstreamFailure);
    const seen = await redirects(tag);
    expect(seen.redirected[0]).toBe(`POST /redirect-307/${tag}/mcp`);
    expect(seen.atTarget).toEqual([]);
  });

  it("the DELETE that closes an upstream session, answered 302 to another origin, is not sent there", async () => {
    const tag = `l4-delete-${crypto.randomUUID()}`;
    const server = fixtureAt(`/redirect-delete-302/${tag}/mcp`);
    const add = await callRemote(server, { ...SECRET_HEADERS }, null, { tool: "counter_add", args: { n: 1 } });
    expect(add.result.content).toEqual([{ type: "text", text: "total: 1" }]);
    expect(await closeRemote(server, { ...SECRET_HEADERS }, add.session!)).toBe(302);
    const seen = await redirects(tag);
    expect(seen.redirected).toEqual([`DELETE /redirect-delete-302/${tag}/mcp`]);
    expect(seen.atTarget).toEqual([]);
  });

  it("a Messages upstream (ANTHROPIC_BASE_URL) answering 307 is a 502, and no request reaches the target", async () => {
    const tag = `l4-messages-${crypto.randomUUID()}`;
    const vars = { ANTHROPIC_BASE_URL: `${BASE_URL}/redirect-307/${tag}`, ANTHROPIC_API_KEY: TOKEN, UPSTREAM_MAX_RETRIES: "0" };
    const body = { model: "claude-sonnet-4-6", max_tokens: 64, messages: [{ role: "user", content: "hello" }] };
    const r = await callWith(vars, "POST", "/v1/messages", body);
    expect(r.status).toBe(502);
    expect(r.body.error.message).toMatch(/upstream answered a redirect \(HTTP 307\); the key is not sent after it/);
    const seen = await redirects(tag);
    expect(seen.redirected).toEqual([`POST /redirect-307/${tag}/v1/messages`]);
    expect(seen.atTarget).toEqual([]);
  });
});
