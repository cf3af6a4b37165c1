// Codex CLI (@openai/codex, its native binary from npm) against the Worker: `codex exec` with a
// model provider at /v1/responses (wire_api = "responses", Codex's only wire) and an MCP server of
// its own with many tools (the fixture server serving the 191 demo tools over Streamable HTTP).
// Codex sends each MCP server as a namespace of functions, next to its own tools; the Worker
// defers them all, the scripted upstream searches and calls one, the call goes back to Codex in
// its own namespaced form, Codex runs it through its own MCP connection and prints the answer.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FIXTURE_SCRIPT } from "../fixtures/edge-servers.ts";
import { deferredNames } from "../fixtures/scripted-model.ts";
import { expectAppendOnly, KEY, names, useAgentRig } from "./agent-rig.ts";
import { freePort, ROOT, tempDir } from "./helpers.ts";
import { demoClientTools } from "./sdk-rig.ts";

const CODEX = join(ROOT, "node_modules/.bin/codex");
const rig = useAgentRig();
let mcp: ChildProcess;
let mcpBase: string;
let home: string;

beforeAll(async () => {
  home = await tempDir("toolsearch-codex-");
  const tools = (await demoClientTools()).map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
  await writeFile(join(home, "tools.json"), JSON.stringify(tools));
  const port = await freePort();
  mcp = spawn(process.execPath, [FIXTURE_SCRIPT, "--port", String(port), "--json", join(home, "tools.json")], { stdio: "pipe" });
  await new Promise<void>((ready, fail) => {
    mcp.stdout!.on("data", (d) => String(d).includes("listening") && ready());
    mcp.once("exit", () => fail(new Error("the MCP fixture exited")));
  });
  mcpBase = `http://127.0.0.1:${port}`;
  await writeFile(
    join(home, "config.toml"),
    [
      'model = "gpt-4o"',
      'model_provider = "toolsearch"',
      "[model_providers.toolsearch]",
      'name = "toolsearch"',
      `base_url = "${rig.dev.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "TOOLSEARCH_KEY"',
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "[mcp_servers.demo]",
      `url = "${mcpBase}/mcp"`,
      'default_tools_approval_mode = "approve"',
    ].join("\n"),
  );
}, 60_000);
afterAll(() => void mcp?.kill());

function codex(prompt: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      CODEX,
      ["exec", "--skip-git-repo-check", "-s", "read-only", prompt],
      { cwd: home, env: { ...process.env, CODEX_HOME: home, TOOLSEARCH_KEY: KEY }, timeout: 90_000 },
      (err, stdout, stderr) => done({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ).stdin?.end();
  });
}

it("codex exec: the Worker defers Codex's MCP tools, the model searches and calls one, Codex runs it and prints the answer", async () => {
  const run = await codex("create an issue in the demo");
  expect(run.code, run.stderr).toBe(0);
  // the model's answer quotes the tool result as Codex gave it back ("Wall time: ...\nOutput:...")
  expect(run.stdout).toMatch(/Done with mcp__demo__create_issue: [\s\S]*ok from create_issue/);
  // Codex ran the call through its own MCP connection
  const stats = (await (await fetch(`${mcpBase}/_control/stats`)).json()) as { calls: Array<{ tool: string }> };
  expect(stats.calls.map((c) => c.tool)).toEqual(["create_issue"]);
  const reqs = rig.llm.requests;
  expect(reqs.length).toBeGreaterThanOrEqual(3);
  const [first] = reqs;
  // names only: Codex's MCP tools are listed in the deferred section, their schemas not sent
  expect(deferredNames(String(first!.body.messages[0]!.content))).toContain("mcp__demo__create_issue");
  expect(names(first!)).toContain("toolSearch");
  expect(names(first!)).not.toContain("mcp__demo__create_issue");
  expect(names(reqs[1]!)).toContain("mcp__demo__create_issue");
  expect(JSON.stringify(first!.body.tools).length).toBeLessThan(20_000);
  expectAppendOnly(reqs);
}, 120_000);
