// Whether this isolate can run code-mode programs, and with what: the QuickJS WebAssembly module
// is instantiated once and made to evaluate `1 + 1`, the first time anything asks (a session
// asking for code mode, or GET /healthz). When that fails (the module did not load, the runtime
// refuses WebAssembly), runCode is not offered: sessions are created without code mode
// (session/create.ts) and /healthz says why. The answer is kept for the isolate's life; a failure
// is a property of the deployment, not of one request.

import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { loadQuickJS } from "./sandbox.ts";

export const ENGINE = "quickjs-emscripten 0.32.0 (QuickJS in WebAssembly, a fresh instance per run)";

export type CodeEngine = { available: true; engine: string } | { available: false; engine: string; reason: string };

/** Instantiate and evaluate once with `load`; never throws. */
export async function probeEngine(load: () => Promise<QuickJSWASMModule>): Promise<CodeEngine> {
  try {
    const vm = (await load()).newContext();
    try {
      const two = vm.dump(vm.unwrapResult(vm.evalCode("1 + 1")));
      if (two !== 2) throw new Error(`1 + 1 evaluated to ${JSON.stringify(two)}`);
    } finally {
      vm.dispose();
    }
    return { available: true, engine: ENGINE };
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { available: false, engine: ENGINE, reason: `the QuickJS WebAssembly module did not run: ${why.slice(0, 200)}` };
  }
}

let probed: Promise<CodeEngine> | undefined;

/** This isolate's engine, probed on first use. */
export function codeEngine(): Promise<CodeEngine> {
  return (probed ??= probeEngine(loadQuickJS));
}
