// A code-mode program as the sandbox sees it (sandbox.ts): the model's code wrapped as the body of
// an async function, the prelude that gives it `tools` and `console`, and what a failure says to
// the model (its kind, and the line and column in the model's own code, not the wrapper's).

import type { RunFailure } from "../wire/code.ts";

/** the file name errors and stack traces carry */
export const PROGRAM_FILE = "program.js";

/** what the host hands the prelude, then takes away from the program */
export const HOST_CALL = "__toolsearch_call";
export const HOST_LOG = "__toolsearch_log";
export const HOST_TICK = "__toolsearch_tick";

/**
 * Built-ins whose one call may be long native work (their size is the program's to choose). The
 * interpreter polls its interrupt handler only every ~10,000 branches, so a loop of such calls
 * could run for minutes between two polls; wrapped, each call first asks the host whether the
 * run's interpreter time is spent (a host call: the clock is read there), and throws once it is.
 */
const METERED: Record<string, string[]> = {
  "String.prototype": [
    "repeat",
    "padStart",
    "padEnd",
    "replace",
    "replaceAll",
    "split",
    "concat",
    "normalize",
    "match",
    "matchAll",
    "search",
    "indexOf",
    "includes",
    "lastIndexOf",
  ],
  "Array.prototype": [
    "join",
    "sort",
    "fill",
    "concat",
    "flat",
    "indexOf",
    "includes",
    "lastIndexOf",
    "reverse",
    "slice",
    "splice",
    "copyWithin",
    "toSorted",
    "toReversed",
  ],
  Array: ["from"],
  JSON: ["stringify", "parse"],
  Object: ["keys", "values", "entries", "assign"],
  "RegExp.prototype": ["exec", "test"],
};
const meter = Object.entries(METERED)
  .map(([owner, names]) => `  for (const name of ${JSON.stringify(names)}) metered(${owner}, name);`)
  .join("\n");

/** how a program that did not finish failed (the wire's runFailure) */
export type SandboxFailure = RunFailure;
export type FailureKind = RunFailure["kind"];

/**
 * `tools.<server>.<tool>(args)` and `tools.<exposed name>(args)` call the host with a name and JSON
 * arguments and resolve to the parsed answer; `then` is never a tool (an `await tools.x` is not a
 * call). console.* joins its arguments (strings as they are, the rest as JSON) into one log line.
 */
export const PRELUDE = `(() => {
  const call = globalThis.${HOST_CALL}, log = globalThis.${HOST_LOG}, tick = globalThis.${HOST_TICK};
  delete globalThis.${HOST_CALL};
  delete globalThis.${HOST_LOG};
  delete globalThis.${HOST_TICK};
  const metered = (owner, name) => {
    const native = owner[name];
    if (typeof native !== "function") return;
    const wrapped = { [name](...args) { if (tick()) throw new InternalError("interrupted"); return native.apply(this, args); } }[name];
    Object.defineProperty(owner, name, { value: wrapped, writable: true, configurable: true });
  };
${meter}
  const show = (v) => {
    if (typeof v === "string") return v;
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch { return String(v); }
  };
  const out = (...args) => log(args.map(show).join(" "));
  globalThis.console = Object.freeze({ log: out, info: out, warn: out, error: out, debug: out });
  const invoke = (name) => async (args) => JSON.parse(await call(name, JSON.stringify(args === undefined ? {} : args)));
  const named = (get) => new Proxy({}, { get: (_, key) => (typeof key === "string" && key !== "then" ? get(key) : undefined) });
  globalThis.tools = named((key) => (key.startsWith("mcp__") ? invoke(key) : named((tool) => invoke(key + "." + tool))));
})();`;

/** lines the wrapper puts before the model's first line */
const HEAD = 1;

export function wrapProgram(code: string): string {
  return `(async () => {\n${code}\n})()`;
}

/** The line and column (in the model's code) a QuickJS stack trace points at. */
export function locate(stack: string | undefined): Pick<SandboxFailure, "line" | "column"> {
  const m = new RegExp(`${PROGRAM_FILE.replace(".", "\\.")}:(\\d+)(?::(\\d+))?`).exec(stack ?? "");
  if (!m) return {};
  const line = Number(m[1]) - HEAD;
  if (line < 1) return {};
  return { line, ...(m[2] ? { column: Number(m[2]) } : {}) };
}

/** What a thrown value or a rejection says, by kind. `stepsOut`: the interrupt handler stopped it. */
export function failureFrom(error: unknown, stepsOut: boolean, limits: { steps: number; cpuMs: number }): SandboxFailure {
  const e = (error && typeof error === "object" ? error : { message: String(error) }) as {
    name?: string;
    message?: string;
    stack?: string;
  };
  const message = String(e.message ?? error);
  if (stepsOut || (e.name === "InternalError" && message === "interrupted"))
    return {
      kind: "cpu",
      message: `the program ran past its CPU limit (${limits.steps} steps or ${limits.cpuMs} ms of interpreter time): an endless loop?`,
    };
  if (message === "out of memory" || /stack overflow/.test(message))
    return { kind: "memory", message: `the program ran out of memory (${message})` };
  const at = locate(e.stack);
  const where = at.line ? ` (line ${at.line}${at.column ? `, column ${at.column}` : ""})` : "";
  if (e.name === "SyntaxError") return { kind: "syntax", message: `SyntaxError: ${message}${where}`, ...at };
  return { kind: "thrown", message: `${e.name ?? "Error"}: ${message}${where}`, ...at };
}
