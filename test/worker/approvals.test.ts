// Approvals over REST inside workerd (POLICY.approval, worker/approvals/): a call whose tool the
// rules ask for answers 409 approval_required with the approval and its link, nothing reaching
// the server; GET /v1/approvals lists it, POST /v1/approvals/:id decides it, and the same call then
// runs once. Every step is audited under the approval's id. Then the bad input: another tenant's
// key, a forged id, a second decision, an expired request, arguments changed after the yes, and
// how long a yes lasts (`remember`).
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AUTH_B, callWith, EDGE, fixtureCalls, upstreamOf, type Json } from "./helpers.ts";

const ADD = "mcp__fixture__counter_add";
const rules = (layer: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  ...EDGE,
  ...extra,
  POLICY: { ...(env.POLICY as object), approval: { default: layer } },
});
const ASK_ADD = rules({ ask: [ADD] });

async function session(vars: Record<string, unknown>) {
  const r = await callWith(vars, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
const callAdd = (vars: Record<string, unknown>, id: string, n: number, headers?: Record<string, string>) =>
  callWith(vars, "POST", `/v1/sessions/${id}/tools/${ADD}/call`, { arguments: { n } }, headers);
const decide = (vars: Record<string, unknown>, approval: string, body: unknown, headers?: Record<string, string>) =>
  callWith(vars, "POST", `/v1/approvals/${approval}`, body, headers);
const audit = async (id: string, q = "") => (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=500${q}`)).body.events as Json[];
/** Time passes for one approval: a time of its row in tenant A's approvals object moved `ms` back. */
const moveBack = (approval: string, column: "expires_at" | "decided_at", ms: number) =>
  runInDurableObject(env.SESSIONS.getByName("approvals:tenant-a/"), (_o, state) => {
    state.storage.sql.exec(`UPDATE approvals SET ${column} = ${column} - ? WHERE id = ?`, ms, approval);
  });
const sent = async (id: string) => (await fixtureCalls(await upstreamOf(id))).filter((c) => c.tool === "counter_add").length;

describe("a call that needs a yes, over REST", () => {
  it("409 with the approval; listed; approved; the same call then runs once, and the next asks again", async () => {
    const id = await session(ASK_ADD);
    const first = await callAdd(ASK_ADD, id, 2);
    expect(first.status).toBe(409);
    expect(first.body.error).toMatchObject({
      code: "approval_required",
      approval: { id: expect.stringMatching(/^ap_[A-Za-z0-9_-]{22}$/), link: expect.stringMatching(/\/approve\/[A-Za-z0-9_-]+\.ap_/) },
    });
    const approval = first.body.error.approval.id as string;
    // asking again before a decision is the same request, not a new one
    expect((await callAdd(ASK_ADD, id, 2)).body.error.approval.id).toBe(approval);
    const listed = await callWith(ASK_ADD, "GET", "/v1/approvals");
    expect(listed.body.approvals.find((a: Json) => a.id === approval)).toMatchObject({
      session: id,
      tool: ADD,
      server: "fixture",
      arguments: '{"n":2}',
      status: "pending",
      remember: "call",
      rule: `default (ask: ${ADD})`,
    });
    expect(await upstreamOf(id)).toBeNull(); // nothing reached the server

    const yes = await decide(ASK_ADD, approval, { approve: true, reason: "fine" });
    expect(yes.status).toBe(200);
    expect(yes.body).toMatchObject({ id: approval, status: "approved", how: "rest", reason: "fine" });
    expect((await callWith(ASK_ADD, "GET", "/v1/approvals")).body.approvals.map((a: Json) => a.id)).not.toContain(approval);

    const ran = await callAdd(ASK_ADD, id, 2);
    expect(ran.status).toBe(200);
    expect(ran.body.isError).toBeFalsy();
    expect(await sent(id)).toBe(1);
    // a yes for one call (remember = call) is used up
    const again = await callAdd(ASK_ADD, id, 2);
    expect(again.status).toBe(409);
    expect(again.body.error.approval.id).not.toBe(approval);
    expect(await sent(id)).toBe(1);

    const rows = await audit(id, `&approval=${approval}`);
    expect(rows.map((e) => [e.type, e.outcome, e.via]).reverse()).toEqual([
      ["approval", "approval_required", "rest"],
      ["approval", "approved", "rest"],
      ["call", "ok", "rest"],
    ]);
    expect(rows.find((e) => e.outcome === "approved")!.detail).toMatch(/^approved by key [0-9a-f]+ \(rest\): fine$/);
  });

  it("a no: the next call is refused once with the reason, nothing is sent, and the one after asks again", async () => {
    const id = await session(ASK_ADD);
    const approval = (await callAdd(ASK_ADD, id, 3)).body.error.approval.id as string;
    expect((await decide(ASK_ADD, approval, { approve: false, reason: "not today" })).body.status).toBe("denied");
    const refused = await callAdd(ASK_ADD, id, 3);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain("denied");
    expect((await callAdd(ASK_ADD, id, 3)).status).toBe(409);
    expect(await upstreamOf(id)).toBeNull();
    const outcomes = (await audit(id, `&approval=${approval}`)).map((e) => `${e.type}:${e.outcome}`).reverse();
    expect(outcomes).toEqual(["approval:approval_required", "approval:approval_denied", "call:approval_denied"]);
  });

  it("a tool the rules do not ask for runs at once; an annotation rule asks for destructive tools only", async () => {
    const vars = rules({ ask: ["destructiveHint"] });
    const id = await session(vars);
    expect((await callAdd(vars, id, 1)).status).toBe(200);
    const wipe = await callWith(vars, "POST", `/v1/sessions/${id}/tools/mcp__fixture__wipe_all/call`, { arguments: { confirm: true } });
    expect(wipe.status).toBe(409);
    expect(wipe.body.error.message).toContain("mcp__fixture__wipe_all");
  });
});

describe("bad input: a clear error, nothing runs, nothing is lost", () => {
  it("another tenant's key and a forged id are unknown; a second decision is 409; the request stands", async () => {
    const id = await session(ASK_ADD);
    const approval = (await callAdd(ASK_ADD, id, 4)).body.error.approval.id as string;
    const other = await decide(ASK_ADD, approval, { approve: true }, AUTH_B);
    expect(other.status).toBe(404);
    expect((await callWith(ASK_ADD, "GET", "/v1/approvals", undefined, AUTH_B)).body.approvals.map((a: Json) => a.id)).not.toContain(
      approval,
    );
    expect((await decide(ASK_ADD, "ap_AAAAAAAAAAAAAAAAAAAAAA", { approve: true })).status).toBe(404);
    expect((await decide(ASK_ADD, "../etc", { approve: true })).status).toBe(404);
    expect((await decide(ASK_ADD, approval, { approve: "yes" })).status).toBe(400);
    expect((await callAdd(ASK_ADD, id, 4)).status).toBe(409); // still pending: nothing was decided
    expect((await decide(ASK_ADD, approval, { approve: false })).status).toBe(200);
    const twice = await decide(ASK_ADD, approval, { approve: true });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain("already decided: denied");
  });

  it("an expired request cannot be decided (410), and the call asks anew", async () => {
    const id = await session(ASK_ADD);
    const approval = (await callAdd(ASK_ADD, id, 5)).body.error.approval.id as string;
    // APPROVAL_TTL_SECONDS pass: the request's expiry is moved into the past in the principal's approvals object
    await moveBack(approval, "expires_at", 600_000);
    const late = await decide(ASK_ADD, approval, { approve: true });
    expect(late.status).toBe(410);
    expect(late.body.error.message).toContain("expired");
    const next = await callAdd(ASK_ADD, id, 5);
    expect(next.status).toBe(409);
    expect(next.body.error.approval.id).not.toBe(approval);
  });

  it("arguments changed after the yes: the call asks again, and the approved one still runs", async () => {
    const id = await session(ASK_ADD);
    const approval = (await callAdd(ASK_ADD, id, 6)).body.error.approval.id as string;
    await decide(ASK_ADD, approval, { approve: true });
    const changed = await callAdd(ASK_ADD, id, 7);
    expect(changed.status).toBe(409);
    expect(changed.body.error.approval.id).not.toBe(approval);
    expect((await callAdd(ASK_ADD, id, 6)).status).toBe(200);
    expect(await sent(id)).toBe(1);
  });
});

describe("remember: how long a yes lasts", () => {
  it('"session": the tool runs with any arguments for the rest of the session, not in another', async () => {
    const vars = rules({ ask: [ADD], remember: "session" });
    const id = await session(vars);
    await decide(vars, (await callAdd(vars, id, 1)).body.error.approval.id, { approve: true });
    for (const n of [1, 2, 3]) expect((await callAdd(vars, id, n)).status).toBe(200);
    expect(await sent(id)).toBe(3);
    expect((await callAdd(vars, await session(vars), 1)).status).toBe(409);
  });

  it('"1m": the tool runs in any session of the principal within the window; after it, the call asks again', async () => {
    const vars = rules({ ask: [ADD], remember: "1m" });
    const id = await session(vars);
    const approval = (await callAdd(vars, id, 1)).body.error.approval.id as string;
    await decide(vars, approval, { approve: true });
    const other = await session(vars);
    expect((await callAdd(vars, other, 9)).status).toBe(200);
    // the window passes: the decision is moved back a minute in the principal's approvals object
    await moveBack(approval, "decided_at", 61_000);
    expect((await callAdd(vars, other, 9)).status).toBe(409);
  });

  it("a typo in the rules is a configuration error naming the key", async () => {
    const bad = rules({ ask: [ADD], remeber: "session" });
    const r = await callWith(bad, "POST", "/v1/sessions", { model: "gpt-4o" });
    expect(r.status).toBe(503);
    expect(r.body.error).toMatchObject({ code: "config_invalid", message: expect.stringContaining("POLICY.approval.default.remeber") });
    expect(r.body.error.message).toContain("remember");
  });
});
