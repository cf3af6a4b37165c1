// Checks a model's tool-call arguments against the tool's JSON Schema before the call reaches the
// client. @cfworker/json-schema interprets schemas (no eval / new Function), so it runs inside
// Workers; one validator per schema is kept, since a catalog's schemas never change. Its `pattern`s
// run in a linear-time engine (core/schema-patterns.ts), never in JavaScript's RegExp, within a
// budget of state visits (a request's checks may share one); arguments that cost more to check
// are refused, as are arguments nested deeper than MAX_JSON_DEPTH, before the validator recurses.

import { Validator, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.ts";
import { Budget, BudgetExceeded } from "./pattern.ts";
import { generation, patternMessage, safeSchema, SCHEMA_PATTERN_BUDGET, withPatternBudget } from "./schema-patterns.ts";

let validators = new WeakMap<object, Validator>();
let built = generation;
const MAX_ERRORS = 5;

function draftOf(schema: Record<string, unknown>): SchemaDraft {
  const s = typeof schema.$schema === "string" ? schema.$schema : "";
  if (s.includes("2020-12")) return "2020-12";
  if (s.includes("2019-09")) return "2019-09";
  if (s.includes("draft-04")) return "4";
  return "7";
}

export type ArgsCheck = { ok: true; args: Record<string, unknown> } | { ok: false; errors: string[] };

/** A budget for the `pattern` checks of one request (a chat turn's calls share one). */
export const patternBudget = () => new Budget(SCHEMA_PATTERN_BUDGET);

/**
 * Parse a call's JSON arguments and validate them; errors are short lines a model can act on.
 * `budget`: what the schema's `pattern` checks may cost (a fresh one per call when not given).
 */
export function checkArguments(
  schema: Record<string, unknown>,
  raw: string | Record<string, unknown>,
  budget: Budget = patternBudget(),
): ArgsCheck {
  let args: unknown = raw;
  if (typeof raw === "string") {
    try {
      args = raw.trim() ? JSON.parse(raw) : {};
    } catch (e) {
      return { ok: false, errors: [`arguments are not valid JSON (${(e as Error).message})`] };
    }
  }
  if (!args || typeof args !== "object" || Array.isArray(args)) return { ok: false, errors: ["arguments must be a JSON object"] };
  if (nestsDeeperThan(args)) return { ok: false, errors: [`arguments nest deeper than ${MAX_JSON_DEPTH} levels`] };
  if (built !== generation) [validators, built] = [new WeakMap(), generation];
  let v = validators.get(schema);
  if (!v) {
    v = new Validator(safeSchema(schema) as Schema, draftOf(schema), false);
    validators.set(schema, v);
  }
  let result: ReturnType<Validator["validate"]>;
  try {
    const validator = v;
    result = withPatternBudget(budget, () => validator.validate(args));
  } catch (e) {
    if (e instanceof BudgetExceeded) {
      const why = `checking them against the schema's patterns takes more than ${budget.total} state visits (live states times characters), the limit`;
      return { ok: false, errors: [`arguments: ${why}; send shorter strings`] };
    }
    // a schema the validator cannot use (an unresolved $ref, a pattern JavaScript cannot compile;
    // clients send such schemas too) is no reason to refuse the call: the tool checks its input
    return { ok: true, args: args as Record<string, unknown> };
  }
  if (result.valid) return { ok: true, args: args as Record<string, unknown> };
  // the innermost errors say what is wrong; the outer ones only repeat "properties failed"
  const errors = result.errors
    .filter((e) => !["properties", "allOf", "$ref", "items"].includes(e.keyword))
    .slice(0, MAX_ERRORS)
    .map((e) => `${e.instanceLocation === "#" ? "arguments" : e.instanceLocation.replace(/^#/, "arguments")}: ${patternMessage(e.error)}`);
  return { ok: false, errors: errors.length ? errors : result.errors.slice(0, MAX_ERRORS).map((e) => patternMessage(e.error)) };
}
