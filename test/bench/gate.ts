// `npm run bench -- gate`: what the session object's tool gate (worker/core/gate.ts) adds to a
// load or a call, and what the check before it cost. Paired, in one run: each iteration times the
// frozen-view check the object made before (sessionAccess) and the gate as the object now runs it
// (the live rules arrive freshly deserialized with every RPC, so they are re-read from JSON each
// time; the views are the isolate's cached ones). Over the demo catalog and a 10,000-tool copy of it.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { accessFor, sessionAccess } from "../../worker/core/access.ts";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import { approvalGate, liveRules, toolGate } from "../../worker/core/gate.ts";
import { DEFAULT_POLICY } from "../../worker/core/policy.ts";
import { ROOT } from "./catalogs.ts";
import { p50, table, tableSection } from "./results.ts";

const ITERATIONS = 2000;
const RULES = { disabled: ["server:nothing-*"], default: { deny: ["*delete*"], denyAnnotations: { destructiveHint: true } } };

function measure(tools: CatalogTool[]) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const policy = { ...DEFAULT_POLICY, access: RULES, profiles: { default: {}, sub: { subAgent: true, tools: [tools[0]!.name] } } };
  const session = { access: accessFor(RULES, "t"), profile: "default" };
  const wire = JSON.stringify(liveRules(policy, "t"));
  const before: number[] = [];
  const after: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const name = tools[i % tools.length]!.name;
    const frozen = JSON.parse(JSON.stringify(session)) as typeof session; // the object parses its row per use
    let t = performance.now();
    sessionAccess(tools, frozen).denied.get(name);
    const a = performance.now() - t;
    t = performance.now();
    toolGate(tools, byName, frozen, JSON.parse(wire))(name);
    const b = performance.now() - t;
    before.push(a);
    after.push(b);
    diff.push(b - a);
  }
  return { before: p50(before), after: p50(after), added: p50(diff) };
}

/** rules a deployment may have that ask for no tool of these catalogs: what a call pays for them */
const APPROVAL = { default: { ask: ["*merge_pull_request*", "server:mail-*", "destructiveHint"] } };

/**
 * A call that matches no approval rule (POLICY.approval), paired: the approval check with no rules
 * deployed, as every call paid before approvals, and with the rules above (live rules parsed from
 * their RPC form each time, as the object gets them). Only tools none of the rules ask for are called.
 */
function measureApproval(tools: CatalogTool[]) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const none = JSON.stringify(liveRules(DEFAULT_POLICY, "t"));
  const some = JSON.stringify(liveRules({ ...DEFAULT_POLICY, approval: APPROVAL }, "t"));
  const names = tools.map((t) => t.name).filter((n) => !approvalGate(byName, JSON.parse(some))(n));
  const before: number[] = [];
  const after: number[] = [];
  const diff: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const name = names[i % names.length]!;
    let t = performance.now();
    approvalGate(byName, JSON.parse(none))(name);
    const a = performance.now() - t;
    t = performance.now();
    approvalGate(byName, JSON.parse(some))(name);
    const b = performance.now() - t;
    before.push(a);
    after.push(b);
    diff.push(b - a);
  }
  return { calls: names.length, before: p50(before), after: p50(after), added: p50(diff) };
}

export async function gateSection(): Promise<string> {
  const demoFile = (await readdir(join(ROOT, "catalogs"))).find((f) => f.startsWith("demo@"))!;
  const demo = (JSON.parse(await readFile(join(ROOT, "catalogs", demoFile), "utf8")) as { tools: CatalogTool[] }).tools;
  const copies = Math.ceil(10_000 / demo.length);
  const tenK = Array.from({ length: copies }, (_, k) => demo.map((t) => ({ ...t, name: `${t.name}_${k}`, server: `${t.server}-m${k}` })))
    .flat()
    .slice(0, 10_000);
  const rows = [
    ["demo", demo.length, measure(demo)],
    ["demo x copies (10,000)", tenK.length, measure(tenK)],
  ] as const;
  const approvals = [
    ["demo", demo.length, measureApproval(demo)],
    ["demo x copies (10,000)", tenK.length, measureApproval(tenK)],
  ] as const;
  const approvalTable = table(
    ["catalog", "tools no rule asks for", "no rules (ms)", "rules that do not match (ms)", "added (ms)"],
    approvals.map(([label, , m]) => [label, m.calls, m.before.toFixed(4), m.after.toFixed(4), m.added.toFixed(4)]),
  );
  const approvalText = `A call that matches no approval rule (POLICY.approval: ${JSON.stringify(APPROVAL.default.ask)}): the approval check paired, with no rules and with these rules deployed, p50 of ${ITERATIONS} iterations. Such a call makes no other approval work (no RPC): the check is all it pays. It is measured against the same check with no rules (what a deployment without POLICY.approval runs); target: no more than today, within the gate's 0.5 ms.`;
  return `${tableSection(
    "## 10. Tool gate",
    `The session object's one tool gate (worker/core/gate.ts) on every load and call: p50 of ${ITERATIONS} paired iterations, ms. "Before": the frozen-view check the object made until issue 30; "gate": frozen rules, the deployment's live rules (parsed from their RPC form each time) and the profile whitelist; "added": p50 of the per-iteration difference. Target: added <= 0.5 ms.`,
    ["catalog", "tools", "before (ms)", "gate (ms)", "added (ms)"],
    rows.map(([label, n, m]) => [label, n, m.before.toFixed(4), m.after.toFixed(4), m.added.toFixed(4)]),
  )}\n${approvalText}\n\n${approvalTable}`;
}

if (import.meta.main) console.log(await gateSection());
