// The sandbox a code-mode program runs in: QuickJS compiled to WebAssembly, a fresh instance per
// run, inside the Worker's own isolate. Why not a Dynamic Worker (the worker_loaders binding):
// local workerd stops no CPU-bound loop in one, and every other request of the same `wrangler
// dev` hangs with it; this interpreter's interrupt handler and memory limit hold here as in
// production, and it needs no binding. The program has no fetch, no timers, no env: its only
// way out is `tools` (each call a JSON string handed to the host's `call`, its answer a JSON
// string back) and `console` (kept as logs). Limits: interpreter steps (the interrupt handler's
// polls), interpreter time (`cpuMs`, the time spent inside the interpreter, checked at each poll:
// steps alone do not bound CPU, since one step may be a built-in's long native work, such as
// 'x'.repeat(1e6) in a loop), memory, wall time (timers do run between the host's awaits), and
// the bytes of logs. Local workerd advances Date.now() during CPU work (measured), so the time
// bound holds under `npm start` and the tests; on Cloudflare, where it does not advance, the
// platform's own CPU limit ends the request, and the step limit holds everywhere.
// When a run ends for any reason, the calls it started are cancelled (their signal aborts).

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSContext, type QuickJSHandle } from "quickjs-emscripten-core";
import releaseVariant from "@jitl/quickjs-wasmfile-release-sync";
// wrangler's CompiledWasm rule matches the file's path (the package's `./wasm` export has no loader)
import wasmModule from "../../node_modules/@jitl/quickjs-wasmfile-release-sync/dist/emscripten-module.wasm";
import { failureFrom, HOST_CALL, HOST_LOG, HOST_TICK, PRELUDE, PROGRAM_FILE, wrapProgram, type SandboxFailure } from "./program.ts";

export interface SandboxLimits {
  /** interrupt polls before the program is stopped (QuickJS polls about every 10,000 bytecode steps) */
  steps: number;
  /** ms of interpreter time (inside evalCode and the job queue) before the program is stopped */
  cpuMs: number;
  memoryBytes: number;
  wallMs: number;
  /** bytes of console output kept; past it the run fails */
  logBytes: number;
}

/** The host's side of one tool call: the name as the program wrote it, the arguments as JSON; the answer as JSON, or a thrown Error. */
export type ToolCall = (name: string, argsJson: string, signal: AbortSignal) => Promise<string>;

export type SandboxResult = { ok: true; value: unknown; logs: string[] } | { ok: false; error: SandboxFailure; logs: string[] };

const variant = newVariant(releaseVariant, { wasmModule });

/** A fresh instance of the interpreter's WebAssembly module (engine.ts probes it once). */
export const loadQuickJS = () => newQuickJSWASMModuleFromVariant(variant);

/** Run `code` (the body of an async function) to its end; never throws for what the program does. */
export async function runInSandbox(code: string, call: ToolCall, limits: SandboxLimits, signal?: AbortSignal): Promise<SandboxResult> {
  // a fresh WebAssembly instance per run: nothing of one program's heap is there for the next, and
  // nothing needs disposing (the instance goes with its last reference)
  const runtime = (await loadQuickJS()).newRuntime();
  runtime.setMemoryLimit(limits.memoryBytes);
  runtime.setMaxStackSize(256 * 1024);
  let steps = 0;
  let cpuOut = false;
  // interpreter time: what the runs inside QuickJS took, and since when the current one runs
  let spent = 0;
  let since = 0;
  const timeUp = () => {
    if (since && spent + (Date.now() - since) > limits.cpuMs) cpuOut = true;
    return cpuOut;
  };
  runtime.setInterruptHandler(() => ++steps > limits.steps || timeUp());
  const inside = <T>(fn: () => T): T => {
    since = Date.now();
    try {
      return fn();
    } finally {
      spent += Date.now() - since;
      since = 0;
    }
  };
  const vm = runtime.newContext();
  const logs: string[] = [];
  let logBytes = 0;
  const ended = new AbortController(); // the calls' signal: aborted when the run ends, however
  let stop: SandboxFailure | null = null;
  let wake = () => {};
  const halt = (failure: SandboxFailure) => {
    stop ??= failure;
    wake();
  };
  const pump = () => {
    if (ended.signal.aborted) return;
    const r = inside(() => runtime.executePendingJobs());
    if (r.error) r.error.dispose();
    wake();
  };
  const timer = setTimeout(
    () => halt({ kind: "timeout", message: `the program did not finish within ${limits.wallMs} ms` }),
    limits.wallMs,
  );
  const onAbort = () => halt({ kind: "cancelled", message: "the run was cancelled" });
  signal?.addEventListener("abort", onAbort);
  if (signal?.aborted) onAbort();
  const fail = (error: unknown): SandboxResult => ({
    ok: false,
    error: failureFrom(error, steps > limits.steps || cpuOut, limits),
    logs,
  });
  try {
    host(vm, HOST_LOG, (args) => {
      const text = args[0] === undefined ? "" : String(vm.dump(args[0]));
      logBytes += new TextEncoder().encode(text).byteLength + 1;
      if (logBytes > limits.logBytes) halt({ kind: "output", message: `console output passed ${limits.logBytes} bytes` });
      else logs.push(text);
    });
    // the metered built-ins ask before each call (program.ts): true once the interpreter time is spent
    host(vm, HOST_TICK, () => (timeUp() ? vm.true : vm.false));
    host(vm, HOST_CALL, (args) => {
      const [name, json] = args.map((a) => String(vm.dump(a)));
      const deferred = vm.newPromise();
      call(name!, json!, ended.signal).then(
        (answer) => !ended.signal.aborted && deferred.resolve(vm.newString(answer)),
        (e: unknown) => !ended.signal.aborted && deferred.reject(vm.newError(e instanceof Error ? e.message : String(e))),
      );
      deferred.settled.then(pump);
      return deferred.handle;
    });
    const prelude = vm.evalCode(PRELUDE, "prelude.js");
    if (prelude.error) throw new Error(`the code-mode prelude failed: ${JSON.stringify(vm.dump(prelude.error))}`);
    const evaluated = inside(() => vm.evalCode(wrapProgram(code), PROGRAM_FILE));
    if (evaluated.error) return fail(vm.dump(evaluated.error));
    const promise = evaluated.value;
    pump();
    for (;;) {
      if (stop) return { ok: false, error: stop, logs };
      const state = vm.getPromiseState(promise);
      if (state.type === "fulfilled") return { ok: true, value: vm.dump(state.value), logs };
      if (state.type === "rejected") return fail(vm.dump(state.error));
      if (steps > limits.steps || cpuOut) return fail(null);
      await new Promise<void>((r) => (wake = r));
    }
  } catch (e) {
    // the interpreter itself gave out (out of memory inside the host bridge): the run fails, the Worker does not
    return fail(e);
  } finally {
    ended.abort();
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** A global function of the program's realm that calls `fn` on the host. */
function host(vm: QuickJSContext, name: string, fn: (args: QuickJSHandle[]) => QuickJSHandle | void): void {
  const handle = vm.newFunction(name, (...args) => fn(args));
  vm.setProp(vm.global, name, handle);
  handle.dispose();
}
