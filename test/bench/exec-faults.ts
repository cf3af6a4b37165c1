// `npm run bench:exec -- faults [--write]`: the project's Worker in `wrangler dev` under load from 50
// sessions, each making 20 calls of the fixture's counter_add (not idempotent), about one a second,
// while one fault happens: (a) the upstream server is killed and restarted on its port, (b) the
// Worker (wrangler dev) is killed and restarted on the same state, (c) D1 is down (the audit table
// renamed away, then back). Every call carries its own `n` (1..1000), so each one is counted where
// it lands: at the upstream server (its --log file outlives the process), in the sessions' audit
// (AUDIT_ARGUMENTS=store keeps `n`) and in D1. A request refused at connect (the Worker down)
// never left the client, so the same call is sent again; any other failure is final.
import { readFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startFixture } from "../fixtures/edge-servers.ts";
import { prepareWorkerCatalogs } from "../worker/prepare-catalogs.ts";
import { BENCH_WORK } from "./catalogs.ts";
import { Api, d1, fmt, sleep, startProject, type Json } from "./exec-rig.ts";
import { machineLine, table } from "./results.ts";

const SESSIONS = 50;
const CALLS = 20; // SESSIONS * CALLS <= 1000, counter_add's largest n
const PACE_MS = 1000;
const FAULT_AT_MS = 5000;
const PORTS = { project: 19030, fixture: 19031 };

type Fault = "upstream" | "worker" | "d1";
const TITLES: Record<Fault, string> = {
  upstream: "(a) upstream server killed, restarted 3 s later",
  worker: "(b) Worker (wrangler dev) killed and restarted",
  d1: "(c) D1 down: the audit table renamed away, back 10 s later (two `wrangler d1 execute` runs)",
};

interface Attempt {
  session: number;
  n: number;
  at: number;
  ok: boolean;
  status: number | "no answer";
}

const logLines = async (log: string) => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);
const refused = (e: unknown) => (e as { cause?: { code?: string } })?.cause?.code === "ECONNREFUSED";

export async function runFaults(): Promise<string> {
  await prepareWorkerCatalogs();
  const state = join(BENCH_WORK, `exec-faults-${Date.now()}`);
  await mkdir(state, { recursive: true });
  const fixtureUrl = `http://127.0.0.1:${PORTS.fixture}/mcp`;
  const servers = JSON.stringify({
    fixture: { url: fixtureUrl, headers: { authorization: "Bearer ${EDGE_TEST_TOKEN}" }, timeoutMs: 30_000 },
  });
  const project = { state, port: PORTS.project, servers, vars: { AUDIT_ARGUMENTS: "store" } };
  let dev = await startProject(project);
  const api = new Api(dev.url);
  const rows: string[] = [];
  let fixture: Awaited<ReturnType<typeof startFixture>> | undefined;
  try {
    // one server for all three runs: a fresh process would leave the Worker's pooled connections to the old one
    const log = join(state, "upstream.jsonl");
    fixture = await startFixture(PORTS.fixture, log);
    for (const fault of ["upstream", "worker", "d1"] as const) {
      const logFrom = await logLines(log);
      const ids = await Promise.all(Array.from({ length: SESSIONS }, api.session));
      const attempts: Attempt[] = [];
      let resent = 0;
      const t0 = performance.now();
      const runners = ids.map(async (id, k) => {
        for (let j = 0; j < CALLS; j++) {
          const due = t0 + j * PACE_MS + (k * PACE_MS) / SESSIONS;
          if (performance.now() < due) await sleep(due - performance.now());
          const n = k * CALLS + j + 1;
          for (;;) {
            const at = performance.now();
            try {
              const r = await api.call(id, "mcp__fixture__counter_add", { n });
              attempts.push({ session: k, n, at, ok: r.status === 200, status: r.status });
            } catch (e) {
              if (refused(e)) {
                resent++;
                await sleep(250);
                continue;
              }
              attempts.push({ session: k, n, at, ok: false, status: "no answer" });
            }
            break;
          }
        }
      });
      await sleep(FAULT_AT_MS);
      const faultStart = performance.now();
      if (fault === "upstream") {
        await fixture.stop();
        await sleep(3000);
        fixture = await startFixture(PORTS.fixture, log);
      } else if (fault === "worker") {
        await dev.stop();
        dev = await startProject(project);
      } else {
        await d1(state, "ALTER TABLE audit_events RENAME TO audit_events_down");
        await sleep(10_000);
        await d1(state, "ALTER TABLE audit_events_down RENAME TO audit_events");
      }
      const faultEnd = performance.now();
      await Promise.all(runners);
      const runEnd = performance.now();
      const ran = (await logLines(log)).slice(logFrom.length);
      rows.push(await count(fault, api, ids, attempts, ran, resent, { faultStart, faultEnd, runEnd, t0 }));
    }
  } finally {
    await dev.stop();
    await fixture?.stop();
  }
  return [
    `### Faults under load (${SESSIONS} sessions x ${CALLS} calls of \`counter_add\`, one a second per session, REST)`,
    "",
    machineLine(),
    "",
    "Counted per call by its `n`: at the upstream server (its log), in the sessions' audit (`GET /v1/sessions/:id/audit`) and in D1 (`GET /v1/audit`), after waiting up to 120 s for delivery. *Lost*: a call the server ran without an audit row, or a row missing from D1. *Doubled*: a call the server ran twice, or a row twice in D1. *Recovery*: from the fault's end (server or Worker up again, D1 table back) until every session has had a successful call. *Calls made*: one per `n`; a request refused at connect (the Worker down) never left the client and was sent again, counted in brackets.",
    "",
    table(
      [
        "fault",
        "fault lasted s",
        "calls made",
        "answered 200",
        "failed",
        "ran upstream",
        "rows written",
        "rows in D1",
        "lost",
        "doubled",
        "`unknown`",
        "sessions ok on their first call after",
        "recovery s",
        "all in D1, s after the last call",
      ],
      rows.map((r) => r.split("\t")),
    ),
  ].join("\n");
}

async function count(
  fault: Fault,
  api: Api,
  ids: string[],
  attempts: Attempt[],
  ran: string[],
  resent: number,
  t: { faultStart: number; faultEnd: number; runEnd: number; t0: number },
): Promise<string> {
  const upstream = new Map<number, number>();
  for (const line of ran) {
    const c = JSON.parse(line) as { tool: string; arguments: { n: number } };
    if (c.tool === "counter_add") upstream.set(c.arguments.n, (upstream.get(c.arguments.n) ?? 0) + 1);
  }
  const written = (await Promise.all(ids.map((id) => api.events(`/v1/sessions/${id}/audit?type=call`)))).flat();
  const rowOf = new Map<number, Json[]>();
  for (const e of written) rowOf.set(e.arguments?.n, [...(rowOf.get(e.arguments?.n) ?? []), e]);
  // delivery: the alarm sends the outbox in batches; after an outage, retries back off to a minute
  let delivered: Json[] = [];
  const deadline = Date.now() + 120_000;
  for (;;) {
    const got = await Promise.all(ids.map((id) => api.events(`/v1/audit?session=${id}&type=call`).catch(() => null)));
    if (!got.includes(null)) delivered = got.flat() as Json[];
    if (delivered.length >= written.length || Date.now() > deadline) break;
    await sleep(1000);
  }
  const allInD1 = (performance.now() - t.runEnd) / 1000;
  const inD1 = new Set(delivered.map((e) => e.id));
  const ranNoRow = [...upstream.keys()].filter((n) => !rowOf.has(n)).length;
  const notDelivered = written.filter((e) => !inD1.has(e.id)).length;
  const doubled = [...upstream.values()].filter((c) => c > 1).length + (delivered.length - inD1.size);
  // recovery: each session's first call sent after the fault ended, and its first success after it
  let firstOk = 0;
  let callingAfter = 0;
  let recovered = 0;
  for (let k = 0; k < ids.length; k++) {
    const after = attempts.filter((a) => a.session === k && a.at >= t.faultEnd).sort((a, b) => a.at - b.at);
    if (!after.length) continue; // its calls were all made before the fault ended
    callingAfter++;
    if (after[0]!.ok) firstOk++;
    const ok = after.find((a) => a.ok);
    recovered = Math.max(recovered, ok ? ok.at - t.faultEnd : Infinity);
  }
  const failed = attempts.filter((a) => !a.ok);
  const byStatus = new Map<string, number>();
  for (const a of failed) byStatus.set(String(a.status), (byStatus.get(String(a.status)) ?? 0) + 1);
  const outcomes = new Map<string, number>();
  for (const e of written) outcomes.set(e.outcome, (outcomes.get(e.outcome) ?? 0) + 1);
  const list = (m: Map<string, number>) => [...m].map(([k, v]) => `${v} ${k}`).join(", ");
  return [
    TITLES[fault],
    fmt((t.faultEnd - t.faultStart) / 1000),
    `${attempts.length}${resent ? ` (${resent} refused at connect, sent again)` : ""}`,
    attempts.length - failed.length,
    failed.length ? `${failed.length} (${list(byStatus)})` : "0",
    upstream.size,
    `${written.length} (${list(outcomes)})`,
    delivered.length,
    ranNoRow + notDelivered,
    doubled,
    outcomes.get("unknown") ?? 0,
    callingAfter ? `${firstOk}/${callingAfter}` : "no call after it",
    !callingAfter ? "" : Number.isFinite(recovered) ? fmt(Math.max(0, recovered) / 1000) : "never",
    delivered.length >= written.length ? fmt(allInD1) : `not after ${fmt(allInD1)}`,
  ].join("\t");
}
