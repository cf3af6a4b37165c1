// Codex CLI (`codex exec`, the npm build) on /mcp with a POLICY.approval rule: it declares form-mode
// elicitation at initialize, so the gateway asks it on the call's stream. `codex exec` runs without
// a person to ask, and declines: the call is refused, the model's final text says so, and the audit
// holds the request and the decision, taken by the client, with no call row. (Gemini CLI declares no
// elicitation: it would get the link; docs/mcp-clients.md.)
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCodex } from "../fixtures/agent-clis.ts";
import { startAgentGateway, type AgentGateway } from "../fixtures/agent-gateway.ts";
import { DEV_API_KEY } from "../fixtures/wrangler-dev.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
let up: AgentGateway;

beforeAll(async () => {
  up = await startAgentGateway("toolsearch-approvals-codex-", {
    POLICY: JSON.stringify({ approval: { default: { ask: ["mcp__everything__echo"] } } }),
  });
}, 120_000);
afterAll(() => up?.stop());

it("codex exec is asked through elicitation, declines, and the call does not run", async () => {
  const r = await runCodex(up.gateway, "Find the echo tool and echo the phrase 'gated-harbor-5'.");
  expect(r.calls).toEqual(["toolsearch.toolSearch", "toolsearch.callTool"]);
  expect(r.text).toContain("denied it; it was not run");
  expect(r.text).not.toContain("Echo: gated-harbor-5");
  // the rows reach D1 with the session's next delivery (about a second)
  let mine: Json[] = [];
  for (let i = 0; i < 50 && mine.length < 3; i++) {
    const res = await fetch(`${up.dev.url}/v1/audit?limit=100`, { headers: { authorization: `Bearer ${DEV_API_KEY}` } });
    mine = (((await res.json()) as Json).events as Json[]).filter((e) => e.tool === "mcp__everything__echo" && e.type !== "activation");
    if (mine.length < 3) await new Promise((r) => setTimeout(r, 200));
  }
  expect(mine.map((e) => `${e.type}:${e.outcome}`).sort()).toEqual([
    "approval:approval_denied",
    "approval:approval_required",
    "call:approval_denied",
  ]);
  expect(mine.find((e) => e.via === "elicitation")!.detail).toMatch(/^denied by MCP client codex-mcp-client\/[\d.]+ \(elicitation\)/);
}, 240_000);
