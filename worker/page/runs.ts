// The session timeline's code-mode runs (runCode, docs/code-mode.md): each run as its audit row
// gives it (when, the code's SHA-256, the outcome, ms, the calls it made) with its calls grouped
// under it. The run rows come from GET /v1/sessions/:id/audit?type=run, each run's calls from
// ?run=<id> (the audit's `run` column links them); oldest first, as the timeline reads.

import type { AuditEvent, AuditPageAnswer } from "../wire/answers.ts";
import { api } from "./api.ts";
import { h, int, offset } from "./dom.ts";

/** Runs drawn, newest ones kept; and calls listed per run (a run may make CODE_MAX_CALLS). */
const RUNS = 20;
const CALLS = 200;

export interface RunEntry {
  run: AuditEvent;
  /** the run's calls (and refusals), oldest first */
  calls: AuditEvent[];
  /** more calls than were fetched */
  more: boolean;
}

/** The session's latest runs, each with its calls (one request per run, all at once). */
export async function loadRuns(id: string): Promise<RunEntry[]> {
  const base = `/v1/sessions/${encodeURIComponent(id)}/audit`;
  const runs = (await api<AuditPageAnswer>(`${base}?type=run&limit=${RUNS}`)).events.filter((e) => e.run);
  const entries = await Promise.all(
    runs.map(async (run) => {
      const page = await api<AuditPageAnswer>(`${base}?run=${encodeURIComponent(run.run!)}&limit=${CALLS}`);
      return { run, calls: page.events.filter((e) => e.type !== "run").reverse(), more: page.cursor !== null };
    }),
  );
  return entries.reverse();
}

const outcomeClass = (e: AuditEvent) => `outcome outcome-${e.outcome === "ok" ? "ok" : "bad"}`;

function call(e: AuditEvent, created: number): HTMLElement {
  return h(
    "li",
    { "data-call": e.tool ?? "", "data-outcome": e.outcome, "data-duration-ms": e.durationMs },
    h("time", { datetime: e.at, title: e.at }, offset(Date.parse(e.at) - created)),
    " ",
    h("code", {}, e.tool ?? "—"),
    " ",
    h("span", { class: outcomeClass(e) }, e.outcome),
    ` ${int(e.durationMs)} ms`,
  );
}

function run({ run: r, calls, more }: RunEntry, created: number): HTMLElement {
  const digest = (r.argsDigest ?? "").replace(/^sha256:/, "");
  return h(
    "li",
    { "data-run": r.run ?? "", "data-outcome": r.outcome, "data-duration-ms": r.durationMs, "data-calls": calls.length },
    h("time", { datetime: r.at, title: r.at }, offset(Date.parse(r.at) - created)),
    " ",
    h("span", { class: "what" }, "runCode ", h("code", { title: `sha256 ${digest}`, class: "run-digest" }, digest.slice(0, 12))),
    " ",
    h("span", { class: outcomeClass(r) }, r.outcome),
    ` ${int(r.durationMs)} ms, ${int(calls.length)}${more ? "+" : ""} ${calls.length === 1 ? "call" : "calls"}`,
    r.detail ? h("small", {}, ` (${r.detail})`) : null,
    calls.length ? h("ol", { class: "run-calls" }, ...calls.map((c) => call(c, created))) : h("p", { class: "nothing" }, "no calls"),
  );
}

/** The runs part of the timeline, or nothing for a session that ran no program. */
export function runsList(entries: readonly RunEntry[], created: number): HTMLElement | null {
  if (!entries.length) return null;
  return h(
    "div",
    { class: "runs" },
    h("h4", {}, `Code-mode runs: ${int(entries.length)}${entries.length === RUNS ? " (the latest)" : ""}`),
    h("ol", { class: "timeline run-list" }, ...entries.map((e) => run(e, created))),
  );
}
