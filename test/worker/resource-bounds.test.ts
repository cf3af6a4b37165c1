// R2-M3: a server's resources and prompts through /mcp are read with the tool results' bound. The
// fixture servers (huge-answer.ts) answer a 200 MiB resource (as SSE) and prompt (as a JSON body),
// 64 KiB at a time with backpressure, counting what their socket took: the v1 SDK leg (the edge
// fixture, stateful) and the v2 one (the MCP 2026-07-28 fixture, after a tool call stored its
// server/discover). Each read fails at the read limit (4 MiB here: 4 x CALL_RESULT_MAX_BYTES is
// less), says so, is audited, and the server saw the gateway stop reading: what workerd could have
// taken in is bounded by what was sent, a few MiB. Small resources and prompts still read.
import { describe, expect, inject, it } from "vitest";
import type { GatewayResourceOp } from "../../worker/core/mcp-resources.ts";
import { callRemote } from "../../worker/session/mcp-client.ts";
import { requestRemote } from "../../worker/session/mcp-resources.ts";
import { AUTH_A, EDGE, fixture, type Json } from "./helpers.ts";
import { audit, connect } from "./mcp-rig.ts";

const HUGE = 200 * 1024 * 1024;
const READ_LIMIT = 4 * 1024 * 1024;
const modernBase = inject("edgeModern");
const RESULT_CAP = 262_144; // CALL_RESULT_MAX_BYTES of the test deployment

/** The huge answers a server wrote since `from` (its stats' `huge`), once each has ended (the close reaches the server a moment later). */
async function answers(stats: () => Promise<Json>, from: number): Promise<Json[]> {
  for (let i = 0; ; i++) {
    const seen = ((await stats()).huge as Json[]).slice(from);
    if (i === 50 || seen.every((a) => a.finished || a.cancelled)) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const fixtureStats = () => fixture("stats");
const modernStats = async () => (await fetch(`${modernBase}/_control/stats`)).json() as Promise<Json>;

/** Read the 200 MiB resource and prompt of `server` in a gateway session; both fail at the read limit. */
async function readHuge(client: Awaited<ReturnType<typeof connect>>["client"], server: string) {
  const listed = (await client.listResources()).resources.find((r) => r.name === `mcp__${server}__huge`);
  expect(listed?.uri).toBe(`fixture://huge/${HUGE}`);
  const started = Date.now();
  const cut = { code: -32603, message: expect.stringMatching(`server ${server}: .*terminated at ${READ_LIMIT} bytes, the read limit`) };
  await expect(client.readResource({ uri: listed!.uri })).rejects.toMatchObject(cut);
  await expect(client.getPrompt({ name: `mcp__${server}__huge`, arguments: { bytes: String(HUGE) } })).rejects.toMatchObject(cut);
  // 400 MiB were offered; reading stopped after 4 MiB of each
  expect(Date.now() - started).toBeLessThan(10_000);
  return listed!.uri;
}

function expectCutOff(seen: Json[]) {
  expect(seen.map((a) => [a.method, a.bytes, a.finished, a.cancelled])).toEqual([
    ["resources/read", HUGE, false, true],
    ["prompts/get", HUGE, false, true],
  ]);
  // what the socket took: the read limit plus what the connection's buffers hold, far from 200 MiB
  for (const a of seen) {
    expect(a.sent).toBeGreaterThan(READ_LIMIT);
    expect(a.sent).toBeLessThan(32 * 1024 * 1024);
  }
}

describe("resources and prompts are read to the read limit (R2-M3)", () => {
  it("v1 SDK leg (stateful server): a 200 MiB resource and prompt fail at the limit; the server saw its streams cut off", async () => {
    const from = ((await fixtureStats()).huge as Json[]).length;
    const { client, id } = await connect("", AUTH_A, EDGE);
    const uri = await readHuge(client, "fixture");
    expectCutOff(await answers(fixtureStats, from));
    // the session goes on: a small resource and prompt of the same server read
    expect((await client.readResource({ uri: "fixture://notes/1" })).contents[0]).toMatchObject({ text: "Note 1: a small resource." });
    const hello = await client.getPrompt({ name: "mcp__fixture__hello" });
    expect(hello.messages[0]!.content).toEqual({ type: "text", text: "Hello from the fixture." });
    const rows = (await audit(id)).filter((e) => e.type === "resource" || e.type === "prompt").reverse();
    expect(rows.map((e) => [e.type, e.tool, e.outcome, e.detail?.includes(`terminated at ${READ_LIMIT} bytes`) ?? false])).toEqual([
      ["resource", uri, "transport_error", true],
      ["prompt", "mcp__fixture__huge", "transport_error", true],
      ["resource", "fixture://notes/1", "ok", false],
      ["prompt", "mcp__fixture__hello", "ok", false],
    ]);
  });

  it("v2 SDK leg (an MCP 2026-07-28 server, no SERVERS entry: the session code's upstream client itself): the same bound", async () => {
    const from = ((await modernStats()).huge as Json[]).length;
    const server = { url: `${modernBase}/mcp`, headers: {}, timeoutMs: 10_000 };
    // a first tool call probes server/discover: its result is what a session stores
    const echo = await callRemote(server, {}, null, { tool: "echo", args: { message: "hi" }, maxBytes: READ_LIMIT });
    expect(echo.result.content).toEqual([{ type: "text", text: "Echo: hi" }]);
    const stored = echo.session!;
    expect(stored).toMatchObject({ protocolVersion: "2026-07-28", discover: expect.any(String) });
    const started = Date.now();
    const ask = (op: GatewayResourceOp) => requestRemote(server, {}, stored, op, RESULT_CAP);
    const cut = { message: expect.stringMatching(`terminated at ${READ_LIMIT} bytes, the read limit`) };
    await expect(ask({ method: "resources/read", uri: `fixture://huge/${HUGE}` })).rejects.toMatchObject(cut);
    await expect(ask({ method: "prompts/get", name: "huge", arguments: { bytes: String(HUGE) } })).rejects.toMatchObject(cut);
    expect(Date.now() - started).toBeLessThan(10_000);
    expectCutOff(await answers(modernStats, from));
    const listed = (await ask({ method: "resources/list" })).result.resources as Json[];
    expect(listed.map((r) => r.uri)).toEqual(["modern://notes/1", `fixture://huge/${HUGE}`]);
    const note = await ask({ method: "resources/read", uri: "modern://notes/1" });
    expect(note.result.contents).toEqual([{ uri: "modern://notes/1", mimeType: "text/plain", text: "Note 1 of the modern fixture." }]);
    // every request after the probe went as 2026-07-28 (no initialize, no session)
    const methods = ((await modernStats()).requests as Json[]).filter((r) => /^(resources|prompts)\//.test(String(r.method)));
    expect(methods.length).toBeGreaterThanOrEqual(4);
    for (const r of methods) expect([r.protocol, r.session]).toEqual(["2026-07-28", null]);
  });
});
