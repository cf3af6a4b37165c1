// One code-mode run: the program in a fresh sandbox (sandbox.ts), every tool call it makes sent
// through the session's one execution path (SessionClient.callTool: the gate, credentials, quotas,
// the write-ahead audit row, now carrying the run's id), at most CODE_PARALLEL at once and
// CODE_MAX_CALLS in all (its rows say `via: "code"`; the run's own row names the surface). A call is named `<server>.<tool>` (the server's own tool name) or by its
// exposed name; what the program gets back is the tool's structured content, else its text (or
// its content blocks when any is not text); a tool error, a refusal or a connect link is a thrown
// Error naming the tool. When the run ends (its answer, a limit, the client gone), the calls
// still running are cancelled. The run is audited as a row of its own (type `run`: the code's
// digest, its calls, its outcome, its time). Only the answer, the logs and one line per call come
// back, all capped at CALL_RESULT_MAX_BYTES; runResult renders that answer as a tool result.

import { argsDigest, type CallToolResult } from "../core/call-result.ts";
import type { AuditOutcome } from "../core/audit.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import type { RouteContext } from "../http.ts";
import { callKey, cancelOnAbort } from "../session/cancel.ts";
import { resultOf, type SessionClient } from "../session/client.ts";
import type { CallContext } from "../session/execution.ts";
import { settings } from "../settings.ts";
import type { CallLine, RunAnswer } from "../wire/code.ts";
import type { SandboxFailure } from "./program.ts";
import { runInSandbox } from "./sandbox.ts";

export type RunContext = Pick<RouteContext, "env" | "ctx"> & Pick<CallContext, "via" | "client">;

/** What a run needs of its session: calls through the execution path, cancelling them, and its own audit row. */
export type RunPort = Pick<SessionClient, "id" | "run" | "cancel" | "recordRun">;

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
export const newRunId = () => `run_${b64url(crypto.getRandomValues(new Uint8Array(16)))}`;

const byServerName = new WeakMap<LoadedCatalog, Map<string, string>>();

/** The exposed name a program's `<server>.<tool>` or exposed name means; an unknown one as written (the execution path answers it). */
export function exposedName(cat: LoadedCatalog, name: string): string {
  if (cat.byName.has(name)) return name;
  let map = byServerName.get(cat);
  if (!map) byServerName.set(cat, (map = new Map(cat.catalog.tools.map((t) => [`${t.server}.${t.originalName}`, t.name]))));
  return map.get(name) ?? name;
}

/** What the program gets for a result: structured content, else the text, else the content blocks. */
export function valueOf(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content ?? [];
  if (content.every((c) => c.type === "text")) return content.map((c) => String(c.text ?? "")).join("\n");
  return content;
}

const textOf = (result: CallToolResult) =>
  (result.content ?? [])
    .map((c) => (c.type === "text" ? String(c.text ?? "") : `[${c.type}]`))
    .join("\n")
    .slice(0, 2000);

/** A slot for each call in flight, at most `n` at once. */
function slots(n: number) {
  let free = n;
  const waiting: Array<() => void> = [];
  return {
    take: () => (free > 0 ? (free--, Promise.resolve()) : new Promise<void>((r) => waiting.push(r))),
    give: () => (waiting.length ? waiting.shift()!() : free++),
  };
}

const OUTCOMES: Record<SandboxFailure["kind"], AuditOutcome> = {
  syntax: "program_error",
  thrown: "program_error",
  cpu: "program_error",
  memory: "program_error",
  output: "program_error",
  timeout: "timeout",
  cancelled: "cancelled",
};

export async function runProgram(
  c: RunContext,
  session: RunPort,
  cat: LoadedCatalog,
  code: string,
  signal?: AbortSignal,
): Promise<RunAnswer> {
  const cfg = settings(c.env);
  const limits = cfg.code;
  const run = newRunId();
  const calls: CallLine[] = [];
  const slot = slots(limits.parallel);
  let made = 0;
  const started = Date.now();
  const outcome = await runInSandbox(
    code,
    async (name, argsJson, ended) => {
      const tool = exposedName(cat, name).slice(0, 128);
      if (++made > limits.maxCalls) throw new Error(`${tool}: not called: a run makes at most ${limits.maxCalls} calls (CODE_MAX_CALLS)`);
      await slot.take();
      const t = Date.now();
      const key = callKey("code");
      const unwatch = cancelOnAbort(c, session, key, ended, "the program ended");
      try {
        if (ended.aborted) throw new Error("the program ended");
        const result = resultOf(await session.run(tool, JSON.parse(argsJson), { via: "code", client: c.client, key, run }));
        if (result.isError) throw new Error(textOf(result));
        calls.push({ tool, ok: true, ms: Date.now() - t });
        return JSON.stringify(valueOf(result)) ?? "null";
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        calls.push({ tool, ok: false, ms: Date.now() - t, error: message.slice(0, 300) });
        throw new Error(`${tool}: ${message}`);
      } finally {
        unwatch();
        slot.give();
      }
    },
    { steps: limits.steps, cpuMs: limits.cpuMs, memoryBytes: limits.memoryBytes, wallMs: limits.wallMs, logBytes: cfg.resultMaxBytes },
    signal,
  );
  const answer = capped(run, outcome.ok ? { value: outcome.value } : { error: outcome.error }, outcome.logs, calls, cfg.resultMaxBytes);
  const digest = await argsDigest({ code });
  const failed = calls.filter((l) => !l.ok).length;
  await session.recordRun({
    tool: null,
    outcome: answer.error ? OUTCOMES[answer.error.kind] : "ok",
    durationMs: Date.now() - started,
    argsDigest: digest.argsDigest,
    argsBytes: new TextEncoder().encode(code).byteLength,
    resultBytes: new TextEncoder().encode(JSON.stringify(answer.value ?? null)).byteLength,
    detail: `${calls.length} calls${failed ? ` (${failed} failed)` : ""}${answer.error ? `; ${answer.error.kind}: ${answer.error.message}` : ""}`,
    via: c.via,
    client: c.client ?? null,
    run,
  });
  return answer;
}

/** A run's answer as a tool result the model reads (runCode on /mcp and in the chat surfaces' hidden rounds): `isError` when it failed. */
export function runResult(answer: RunAnswer): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(answer) }], ...(answer.error ? { isError: true } : {}) };
}

/** The answer within `max` bytes: a value over it is an `output` failure; logs keep their first lines. */
function capped(run: string, end: Pick<RunAnswer, "value" | "error">, logs: string[], calls: CallLine[], max: number): RunAnswer {
  const size = (v: unknown) => new TextEncoder().encode(JSON.stringify(v) ?? "").byteLength;
  const answer: RunAnswer = { run, ...end, logs, calls };
  if (end.value !== undefined && size(end.value) > max) {
    delete answer.value;
    answer.error = { kind: "output", message: `the program's answer is ${size(end.value)} bytes, over the ${max}-byte cap: return less` };
  }
  return answer;
}
