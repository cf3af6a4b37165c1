// The `pattern` keywords of a tool's JSON Schema, run by core/pattern.ts instead of JavaScript's
// RegExp. Schemas come from clients (their own tools) and from MCP servers, and @cfworker/json-schema
// runs `new RegExp(pattern).test(value)` on model-made arguments: `^(a+)+$` on 30 characters
// blocked the isolate, and every other tenant's request on it, for seconds (ReDoS). So before a
// schema reaches the validator each `pattern` becomes a `format` the validator looks up in its
// format table, registered here as the linear-time NFA of that pattern. A pattern the NFA refuses
// (backreferences, lookaround, over 200 characters) is never run: that value is not checked, as
// for any schema the validator cannot use (the tool checks its own input). `patternProperties`
// is dropped for the same reason. The registry is bounded: past MAX_REGISTERED patterns it is
// emptied, with the validators built on it (`generation` tells tool-args.ts to rebuild them).
// The NFA is linear, with up to 2,000 live states per character (R2-M4): the checks made during
// withPatternBudget draw on its Budget (SCHEMA_PATTERN_BUDGET per request), and past it the
// validator's call throws BudgetExceeded, which tool-args.ts turns into a refusal.

import { format } from "@cfworker/json-schema";
import { Budget, compilePattern, PatternError } from "./pattern.ts";

/**
 * State visits the `pattern` checks of one request may make: a 1 MiB string against `^[a-z]+$`
 * takes about 6 million; the worst, 16 million, blocks the isolate for about 0.5 s.
 */
export const SCHEMA_PATTERN_BUDGET = 16_000_000;

/** the budget of the check running now (checks are synchronous: one at a time) */
let active: Budget | undefined;

/** Run `check` with the pattern checks it makes drawing on `budget`. */
export function withPatternBudget<T>(budget: Budget, check: () => T): T {
  const outer = active;
  active = budget;
  try {
    return check();
  } finally {
    active = outer;
  }
}

const PREFIX = "toolsearch-pattern:";
const MAX_REGISTERED = 1024;
const registered = new Set<string>();
export let generation = 0;

// values of these keywords are instances, not schemas: a `pattern` key in them is data
const DATA = new Set(["const", "enum", "default", "examples"]);

function register(source: string): string {
  const key = PREFIX + source;
  if (registered.has(key)) return key;
  if (registered.size >= MAX_REGISTERED) {
    for (const k of registered) delete format[k];
    registered.clear();
    generation++;
  }
  let test: (s: string) => boolean;
  try {
    const compiled = compilePattern(source);
    test = (s) => compiled.test(s, active);
  } catch (e) {
    if (!(e instanceof PatternError)) throw e;
    test = () => true; // refused: never run, so the value is not checked
  }
  format[key] = test;
  registered.add(key);
  return key;
}

/** A copy of `schema` whose `pattern`s are NFA formats and without `patternProperties`. */
export function safeSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(safeSchema);
  if (!schema || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "patternProperties") continue;
    out[k] = DATA.has(k) || (k === "pattern" && typeof v === "string") ? v : safeSchema(v);
  }
  if (typeof out.pattern !== "string") return out;
  const key = register(out.pattern);
  delete out.pattern;
  if (out.format === undefined) out.format = key;
  else out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { format: key }];
  return out;
}

/** The validator's message for an NFA format, said as the pattern it is. */
export function patternMessage(error: string): string {
  const at = error.indexOf(`"${PREFIX}`);
  return at < 0 ? error : `String does not match pattern ${error.slice(at + 1 + PREFIX.length, -2)}.`;
}
