// POLICY.access inside workerd: denial by exposed name, server glob, annotation and tenant. A
// denied tool is invisible to that tenant everywhere (deferred section, keyword search, select:,
// calls), every refusal is audited as a denial, and the view is frozen with the session.
import { describe, expect, it } from "vitest";
import { AUTH_B, callTool, callWith, EDGE, edgeSession, edgeVars, upstreamOf, type Json } from "./helpers.ts";

const RULES = {
  disabled: ["mcp__everything__gzip-file-as-resource"],
  default: { deny: ["mcp__fixture__whoami"], denyAnnotations: { destructiveHint: true } },
  tenants: { "tenant-b": { allow: ["server:fixture"], requireAnnotations: { readOnlyHint: true } } },
};

const searchAs = (id: string, query: string, headers?: Record<string, string>) =>
  callWith(EDGE, "POST", `/v1/sessions/${id}/tool-search`, { query, limit: 20 }, headers);
const deferred = (s: Json) => (s.prompt.system as string).split("\n").filter((l) => l.startsWith("mcp__"));

describe("access rules", () => {
  it("tenant A (default rules): denied by name, by annotation and globally; hidden from the section and from search", async () => {
    const s = await edgeSession(RULES);
    const names = deferred(s);
    expect(names).toContain("mcp__fixture__counter_add");
    expect(names).toContain("mcp__everything__echo");
    for (const hidden of ["mcp__fixture__whoami", "mcp__fixture__wipe_all", "mcp__everything__gzip-file-as-resource"])
      expect(names).not.toContain(hidden);
    // unannotated destructiveHint defaults to true (MCP): none here, so only wipe_all goes
    expect(names).toHaveLength(23 - 3);
    const r = await searchAs(s.id, "wipe delete every record store whoami authorization gzip");
    expect(r.status).toBe(200);
    for (const m of r.body.matches)
      expect(["mcp__fixture__whoami", "mcp__fixture__wipe_all", "mcp__everything__gzip-file-as-resource"]).not.toContain(m.name);
    const server = await searchAs(s.id, "mcp__fixture");
    expect(server.body.result).not.toMatch(/whoami|wipe_all/);
  });

  it("select: and calls of a denied name are refused clearly, never loaded, never sent, and audited", async () => {
    const s = await edgeSession(RULES);
    const sel = await searchAs(s.id, "select:mcp__fixture__wipe_all,mcp__fixture__counter_get");
    expect(sel.body.loaded).toEqual(["mcp__fixture__counter_get"]);
    expect(sel.body.result).toContain("Tool mcp__fixture__wipe_all is not available in this session (access policy).");
    const call = await callTool(s.id, "mcp__fixture__whoami", {});
    expect(call.status).toBe(403);
    expect(call.body.error).toEqual({
      code: "forbidden",
      message: "tool mcp__fixture__whoami is not available in this session (access policy)",
    });
    expect(await upstreamOf(s.id)).toBeNull(); // nothing was ever sent: no MCP session was opened
    const state = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}`)).body;
    expect(state.activations).toEqual(["mcp__fixture__counter_get"]);
    const events = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit?type=denial`)).body.events;
    expect(events.map((e: Json) => [e.tool, e.outcome, e.decision, e.detail])).toEqual([
      ["mcp__fixture__whoami", "denied", "deny", "denied by default (deny: mcp__fixture__whoami)"],
      ["mcp__fixture__wipe_all", "denied", "deny", "denied by default (denyAnnotations: destructiveHint is true)"],
    ]);
  });

  it("tenant B (its own rules): only read-only fixture tools; an allowed one runs", async () => {
    const s = await edgeSession(RULES, AUTH_B);
    expect(deferred(s).sort()).toEqual([
      "mcp__fixture__counter_get",
      "mcp__fixture__crash",
      "mcp__fixture__fail",
      "mcp__fixture__huge",
      "mcp__fixture__slow",
      "mcp__fixture__whoami",
    ]);
    expect((await searchAs(s.id, "echo message", AUTH_B)).body.matches.map((m: Json) => m.name)).toEqual(["mcp__fixture__whoami"]);
    const echo = await callTool(s.id, "mcp__everything__echo", { message: "x" }, AUTH_B);
    expect(echo.status).toBe(403);
    const add = await callTool(s.id, "mcp__fixture__counter_add", { n: 1 }, AUTH_B);
    expect(add.body.error.code).toBe("forbidden");
    const get = await callTool(s.id, "mcp__fixture__counter_get", {}, AUTH_B);
    expect(get.status).toBe(200);
    const reasons = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit?type=denial`, undefined, AUTH_B)).body.events.map(
      (e: Json) => e.detail,
    );
    expect(reasons).toEqual([
      "denied by tenant tenant-b (requireAnnotations: readOnlyHint must be true)",
      "not allowed for tenant tenant-b (allow: server:fixture)",
    ]);
  });

  it("a rule change reaches a live session: a revoked tool stops running (M3); new sessions never list it", async () => {
    const s = await edgeSession(RULES);
    const stricter = { ...RULES, disabled: ["server:fixture"] };
    expect((await callTool(s.id, "mcp__fixture__counter_get", {})).status).toBe(200);
    const later = await callWith(edgeVars(stricter), "POST", `/v1/sessions/${s.id}/tools/mcp__fixture__counter_get/call`, {
      arguments: {},
    });
    expect(later.status).toBe(403);
    // the loaded tool leaves what the session holds while the rule stands
    const read = (vars: Record<string, unknown>) => callWith(vars, "GET", `/v1/sessions/${s.id}`);
    expect((await read(edgeVars(stricter))).body.activations).toEqual([]);
    expect((await read(EDGE)).body.activations).toEqual(["mcp__fixture__counter_get"]);
    const events = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit?type=denial`)).body.events;
    expect(events.map((e: Json) => [e.tool, e.detail])).toEqual([
      ["mcp__fixture__counter_get", "disabled globally (POLICY.access.disabled: server:fixture)"],
    ]);
    const fresh = await edgeSession(stricter);
    expect(deferred(fresh).filter((n) => n.startsWith("mcp__fixture__"))).toEqual([]);
    expect((await callTool(fresh.id, "mcp__fixture__counter_get", {})).status).toBe(403);
  });

  it("sessions of the same tenant and rules share byte-identical prompts", async () => {
    const [a, b] = [await edgeSession(RULES), await edgeSession(RULES)];
    expect(a.prompt.prefixHash).toBe(b.prompt.prefixHash);
    expect(JSON.stringify(a.prompt)).toBe(JSON.stringify(b.prompt));
  });

  it("a bad rule is a clear configuration error", async () => {
    const r = await callWith(edgeVars({ default: { deny: "mcp__x" } }), "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" });
    expect(r.status).toBe(503);
    expect(r.body.error).toEqual({ code: "config_invalid", message: "POLICY.access.default.deny: must be a list of patterns" });
  });
});
