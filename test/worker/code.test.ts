// Code mode over REST inside workerd (POST /v1/sessions/:id/code): a program that calls real
// server-everything tools through the one execution path, one of them in a loop, and returns a
// summary; every call audited under the run's id, and the run a row of its own. Then the bad
// programs: each a clear error, with nothing left running, and the Worker serving other requests.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "./main.ts";
import { AUTH_B, callWith, EDGE, edgeSession, edgeVars, KEY_U, request, type Json } from "./helpers.ts";

const DENY_ENV = { default: { deny: ["mcp__everything__get-env"] } };
const codeSession = (access?: Record<string, unknown>) => edgeSession(access, undefined, { code: "on" });
const run = (id: string, code: string, vars: Record<string, unknown> = EDGE) => callWith(vars, "POST", `/v1/sessions/${id}/code`, { code });
const audit = async (id: string, q = "") => (await callWith(EDGE, "GET", `/v1/sessions/${id}/audit?limit=500${q}`)).body.events as Json[];

const PROGRAM = `
const echoed = await tools.everything.echo({ message: "hi" });
let total = 0;
for (let i = 1; i <= 10; i++) total += Number(/\\d+/.exec(await tools.everything["get-sum"]({ a: i, b: 0 }))[0]);
const weather = await tools.mcp__everything__get-structured-content({ location: "Chicago" });
console.log("summing done", total);
return { echoed, total, hasTemperature: typeof weather.temperature === "number" };`;

describe("a program", () => {
  it("calls three tools, one in a loop of 10, and answers only its summary; every call is audited under the run", async () => {
    const s = await codeSession();
    const r = await run(
      s.id,
      PROGRAM.replace("tools.mcp__everything__get-structured-content", 'tools["mcp__everything__get-structured-content"]'),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      run: expect.stringMatching(/^run_[A-Za-z0-9_-]{22}$/),
      value: { echoed: "Echo: hi", total: 55, hasTemperature: true },
      logs: ["summing done 55"],
    });
    expect(r.body.calls).toHaveLength(12);
    expect(r.body.calls.map((c: Json) => c.tool)).toEqual([
      "mcp__everything__echo",
      ...Array(10).fill("mcp__everything__get-sum"),
      "mcp__everything__get-structured-content",
    ]);
    expect(r.body.calls.every((c: Json) => c.ok && c.ms >= 0)).toBe(true);
    const rows = await audit(s.id, `&run=${r.body.run}`);
    const calls = rows.filter((e) => e.type === "call");
    expect(calls).toHaveLength(12);
    expect(calls.every((e) => e.outcome === "ok" && e.via === "code" && e.run === r.body.run)).toBe(true);
    const [runRow] = rows.filter((e) => e.type === "run");
    expect(runRow).toMatchObject({ outcome: "ok", run: r.body.run, argsDigest: expect.stringMatching(/^sha256:/), detail: "12 calls" });
    // what is not the run's is not listed under it
    expect((await audit(s.id)).filter((e) => e.run !== r.body.run).map((e) => e.type)).toEqual(["activation", "activation", "activation"]);
  });

  it('a POLICY profile may make code mode its sessions\' default; a session asking "code": "off" keeps it off', async () => {
    const policy = env.POLICY as { profiles: Record<string, unknown> };
    const vars = { ...EDGE, POLICY: { ...policy, profiles: { ...policy.profiles, coder: { code: "on" } } } };
    const create = async (body: Record<string, unknown>) =>
      (await callWith(vars, "POST", "/v1/sessions", { model: "gpt-4o", deferral: "on", ...body })).body;
    const names = (s: Json) => (s.prompt.tools as Json[]).map((t) => t.function.name);
    expect(names(await create({ profile: "coder" }))).toEqual(["toolSearch", "runCode"]);
    expect(names(await create({ profile: "coder", code: "off" }))).toEqual(["toolSearch"]);
    expect(names(await create({}))).toEqual(["toolSearch"]);
    // a typo in the profile's value is the deployment's error, naming it
    const bad = { ...EDGE, POLICY: { ...policy, profiles: { ...policy.profiles, coder: { code: "yes" } } } };
    const r = await callWith(bad, "POST", "/v1/sessions", { model: "gpt-4o", profile: "coder" });
    expect(r.status).toBe(503);
    expect(r.body.error.message).toContain("POLICY.profiles.coder.code");
  });

  it("the REST prompt lists runCode after toolSearch in a code-mode session, in both formats; without code mode it does not", async () => {
    const s = await codeSession();
    expect((s.prompt.tools as Json[]).map((t) => t.function.name)).toEqual(["toolSearch", "runCode"]);
    const openai = await callWith(EDGE, "GET", `/v1/sessions/${s.id}/prompt`);
    expect(openai.body.tools.map((t: Json) => t.function.name)).toEqual(["toolSearch", "runCode"]);
    const runCode = openai.body.tools[1].function;
    expect(runCode.description).toContain("tools.<server>.<tool>(args)");
    expect(runCode.parameters.required).toEqual(["code"]);
    const anthropic = await callWith(EDGE, "GET", `/v1/sessions/${s.id}/prompt?format=anthropic`);
    expect(anthropic.body.tools.map((t: Json) => t.name)).toEqual(["toolSearch", "runCode"]);
    // a loaded tool goes before runCode, as the chat surfaces send it
    await callWith(EDGE, "POST", `/v1/sessions/${s.id}/tool-search`, { query: "select:mcp__everything__echo" });
    const after = await callWith(EDGE, "GET", `/v1/sessions/${s.id}/prompt`);
    expect(after.body.tools.map((t: Json) => t.function.name)).toEqual(["toolSearch", "mcp__everything__echo", "runCode"]);
    expect(after.body.system).toBe(openai.body.system);
    const plain = await edgeSession();
    const without = await callWith(EDGE, "GET", `/v1/sessions/${plain.id}/prompt`);
    expect(without.body.tools.map((t: Json) => t.function.name)).toEqual(["toolSearch"]);
  });

  it("/healthz says code mode can run here, and with what engine", async () => {
    const r = await callWith(EDGE, "GET", "/healthz", undefined, {});
    expect(r.status).toBe(200);
    expect(r.body.code).toEqual({
      available: true,
      engine: expect.stringMatching(/^quickjs-emscripten 0\.32\.0 \(QuickJS in WebAssembly/),
    });
  });

  it("a session without code mode has no runs: 409", async () => {
    const s = await edgeSession();
    const r = await run(s.id, "return 1");
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain('"code": "on"');
  });
});

describe("bad programs: a clear error, nothing left running", () => {
  it("a syntax error and a throw name their line and column in the program's own code", async () => {
    const s = await codeSession();
    const syntax = await run(s.id, "const a = 1;\nreturn (a +;");
    expect(syntax.body.error).toMatchObject({ kind: "syntax", line: 2, message: expect.stringContaining("SyntaxError") });
    const thrown = await run(s.id, "const x = 1;\nthrow new Error('no such order: ' + x);");
    expect(thrown.body.error).toMatchObject({ kind: "thrown", line: 2, message: expect.stringContaining("no such order: 1") });
    expect((await audit(s.id)).filter((e) => e.type === "run").map((e) => e.outcome)).toEqual(["program_error", "program_error"]);
  });

  it("an endless loop ends at the CPU limit, and another request is served", async () => {
    const s = await codeSession();
    const t0 = Date.now();
    const [loop, other] = await Promise.all([run(s.id, "while (true) {}"), callWith(EDGE, "GET", `/v1/sessions/${s.id}`)]);
    expect(loop.body.error).toMatchObject({ kind: "cpu", message: expect.stringContaining("CPU limit") });
    expect(other.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it("a promise that never settles ends at the wall limit", async () => {
    const s = await codeSession();
    const r = await run(s.id, "await new Promise(() => {})", { ...EDGE, CODE_WALL_MS: "300" });
    expect(r.body.error).toEqual({ kind: "timeout", message: "the program did not finish within 300 ms" });
  });

  it("a slow call still running when the wall limit passes is cancelled at its server", async () => {
    const s = await codeSession();
    const r = await run(s.id, "return await tools.fixture.slow({ ms: 20000 })", { ...EDGE, CODE_WALL_MS: "500" });
    expect(r.body.error.kind).toBe("timeout");
    await expect.poll(async () => (await audit(s.id)).find((e) => e.type === "call")?.outcome, { timeout: 5000 }).toBe("cancelled");
  });

  it("100 MB of output and a blown-up heap are stopped", async () => {
    const s = await codeSession();
    const logs = await run(s.id, "const line = 'x'.repeat(1000); for (let i = 0; i < 100000; i++) console.log(line);");
    expect(logs.body.error).toMatchObject({ kind: "output" });
    expect(JSON.stringify(logs.body).length).toBeLessThan(400_000);
    const answer = await run(s.id, "return 'x'.repeat(5000000)");
    expect(answer.body.error).toMatchObject({ kind: "output", message: expect.stringContaining("over the") });
    const memory = await run(s.id, "let s = [1]; while (true) s = s.concat(s);");
    expect(memory.body.error).toMatchObject({ kind: "memory" });
  });

  it("has no network and no Worker: fetch, env and bindings are not there", async () => {
    const s = await codeSession();
    const r = await run(
      s.id,
      "return [typeof fetch, typeof env, typeof SESSIONS, typeof process, typeof require, typeof setTimeout, Object.keys(globalThis).sort()]",
    );
    expect(r.body.value).toEqual(["undefined", "undefined", "undefined", "undefined", "undefined", "undefined", ["console", "tools"]]);
    const f = await run(s.id, "return await fetch('http://127.0.0.1:9/')");
    expect(f.body.error).toMatchObject({ kind: "thrown", message: expect.stringContaining("'fetch' is not defined") });
  });

  it("two tenants: another tenant's session is a 404, and nothing a program writes reaches past its sandbox", async () => {
    const a = await codeSession();
    const b = await edgeSession(undefined, AUTH_B, { code: "on" });
    expect((await callWith(EDGE, "POST", `/v1/sessions/${b.id}/code`, { code: "return 1" })).status).toBe(404);
    const escape = await run(
      a.id,
      "const g = (0, eval)('this'); const f = Function('return this')(); return [g === globalThis, f === globalThis, Object.getOwnPropertyNames(globalThis).filter((k) => !/^[A-Z]/.test(k) && !['globalThis', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'unescape', 'eval', 'undefined'].includes(k)).sort(), typeof tools.constructor, typeof tools.then]",
    );
    expect(escape.body.value).toEqual([true, true, ["console", "tools"], "object", "undefined"]);
    // a tool name is all a program can write: a session id or another tenant's name is not a tool
    const named = await run(a.id, `return await tools["${b.id}"].prompt()`);
    expect(named.body.error.message).toMatch(/there is no tool/);
  });

  it("a denied tool and an unknown tool are thrown errors naming them; the program can catch them", async () => {
    const vars = edgeVars(DENY_ENV);
    const s = await codeSession(DENY_ENV);
    const denied = await run(s.id, 'return await tools.everything["get-env"]()', vars);
    expect(denied.body.error.message).toContain("mcp__everything__get-env");
    expect(denied.body.calls).toEqual([{ tool: "mcp__everything__get-env", ok: false, ms: expect.any(Number), error: expect.any(String) }]);
    const unknown = await run(s.id, "return await tools.everything.ehco({ message: 'x' })", vars);
    expect(unknown.body.error.message).toMatch(/everything\.ehco: there is no tool .*closest names: .*mcp__everything__echo/);
    const caught = await run(
      s.id,
      'try { await tools.everything["get-env"]() } catch (e) { return "caught: " + e.message.slice(0, 40) }',
      vars,
    );
    expect(caught.body.value).toMatch(/^caught: mcp__everything__get-env/);
    expect((await audit(s.id)).filter((e) => e.type === "denial").map((e) => e.tool)).toEqual([
      "mcp__everything__get-env",
      "mcp__everything__get-env",
    ]);
  });

  it("more calls than a run may make: the rest are refused, not sent", async () => {
    const s = await codeSession();
    const r = await run(
      s.id,
      "const out = []; for (let i = 0; i < 5; i++) out.push(await tools.everything.echo({ message: String(i) })); return out",
      {
        ...EDGE,
        CODE_MAX_CALLS: "3",
      },
    );
    expect(r.body.error.message).toContain("a run makes at most 3 calls (CODE_MAX_CALLS)");
    expect((await audit(s.id)).filter((e) => e.type === "call")).toHaveLength(3);
  });

  it("each call counts against the key's quota of upstream calls: past it, calls throw and nothing is sent", async () => {
    const auth = { authorization: `Bearer ${KEY_U}` }; // tenant-u: 3 upstream calls a minute (wrangler.toml)
    const s = await edgeSession(undefined, auth, { code: "on" });
    const code =
      "const out = []; for (let i = 0; i < 5; i++) { try { out.push(await tools.everything.echo({ message: String(i) })) } catch (e) { out.push(e.message.slice(0, 90)) } } return out";
    const r = await callWith(EDGE, "POST", `/v1/sessions/${s.id}/code`, { code }, auth);
    expect(r.body.value.slice(0, 3)).toEqual(["Echo: 0", "Echo: 1", "Echo: 2"]);
    expect(r.body.value[3]).toMatch(/^mcp__everything__echo: .*quota/);
    const rows = (await callWith(EDGE, "GET", `/v1/sessions/${s.id}/audit?limit=50`, undefined, auth)).body.events as Json[];
    expect(
      rows
        .filter((e) => e.type === "call")
        .map((e) => e.outcome)
        .sort(),
    ).toEqual(["ok", "ok", "ok", "rate_limited", "rate_limited"]);
  });

  it("calls run in parallel up to CODE_PARALLEL", async () => {
    const s = await codeSession();
    const t0 = Date.now();
    const r = await run(s.id, "return (await Promise.all([1,2,3,4].map(() => tools.fixture.slow({ ms: 600 })))).length", {
      ...EDGE,
      CODE_PARALLEL: "2",
    });
    expect(r.body.value).toBe(4);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThan(1150); // two waves of two
    expect(took).toBeLessThan(2400);
  });

  it("a run cancelled by its client ends, and so does the call it started", async () => {
    const s = await codeSession();
    const aborted = new AbortController();
    const req = new Request(request("POST", `/v1/sessions/${s.id}/code`, { code: "return await tools.fixture.slow({ ms: 20000 })" }), {
      signal: aborted.signal,
    });
    const pending = worker.fetch(req, { ...env, ...EDGE } as Env, createExecutionContext()).catch((e: Error) => e);
    await expect.poll(async () => (await audit(s.id)).find((e) => e.type === "call")?.outcome, { timeout: 5000 }).toBe("started");
    aborted.abort();
    await pending;
    await expect.poll(async () => (await audit(s.id)).find((e) => e.type === "call")?.outcome, { timeout: 5000 }).toBe("cancelled");
    await expect.poll(async () => (await audit(s.id)).find((e) => e.type === "run")?.outcome, { timeout: 5000 }).toBe("cancelled");
  });
});
