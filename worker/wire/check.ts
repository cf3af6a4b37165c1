// The one way a request's body, query or headers are checked: a zod schema, and check(), which
// answers the value or a bad_request naming the first field that breaks a rule
// (`limit: must be an integer from 1 to 20`). Schemas live beside the surface that reads them
// (requests.ts for REST, chat.ts for the chat endpoint) and their types are z.infer of them.
// unlessQuick() spares zod's copy of a large list a one-pass check vouches for (issue 38).

import { z } from "zod";
import { ToolsearchError } from "../core/errors.ts";

/** The value, or a bad_request naming the first field that breaks a rule. */
export function check<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  if (issue.code === "unrecognized_keys") throw new ToolsearchError("bad_request", `unknown field "${issue.keys[0]}"`);
  const where = issue.path.length ? issue.path.join(".") : "body";
  const rule = issue.code === "invalid_type" && issue.received === "undefined" ? "required" : issue.message;
  throw new ToolsearchError("bad_request", `${where}: ${rule}`);
}

export const int = (min: number, max: number) =>
  z
    .number({ invalid_type_error: `must be an integer from ${min} to ${max}` })
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be an integer from ${min} to ${max}`)
    .max(max, `must be an integer from ${min} to ${max}`);

/** A header set: the schema's headers the request carries, checked as one object. */
export function checkHeaders<T>(schema: z.ZodObject<z.ZodRawShape, "strip", z.ZodTypeAny, T>, headers: Headers): T {
  const given: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const v = headers.get(name);
    if (v !== null) given[name] = v;
  }
  return check(schema, given);
}

/**
 * `schema`, except that a value `quick` answers (what zod would answer for it: the same values, in
 * the same key order; undefined when it cannot tell) is taken without zod's copy of it; anything
 * else zod parses, and its issues are the refusal, as before. A frozen value (the tools the
 * tool-set cache shares between requests that send the same text) is answered once.
 */
export function unlessQuick<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, quick: (v: unknown) => T | undefined) {
  const vouched = new WeakMap<object, T>();
  return z.unknown().transform((v, ctx): T => {
    const shared = typeof v === "object" && v !== null && Object.isFrozen(v);
    const known = shared ? vouched.get(v) : undefined;
    if (known !== undefined) return known;
    const answered = quick(v);
    if (answered !== undefined) {
      if (shared) vouched.set(v, answered);
      return answered;
    }
    const r = schema.safeParse(v);
    if (r.success) return r.data;
    for (const issue of r.error.issues) ctx.addIssue(issue as z.IssueData);
    return z.NEVER;
  });
}

/**
 * The keys of `o` that zod's object answers in the same order: those of `order` it has, in that
 * order, then (`others`: a passthrough object) any other key; never __proto__, which zod drops.
 */
export function keysInOrder(o: object, order: readonly string[], others: boolean): boolean {
  let at = 0;
  let other = false;
  for (const k of Object.keys(o)) {
    const i = order.indexOf(k);
    if (i >= 0) {
      if (other || i < at) return false;
      at = i + 1;
    } else if (!others || k === "__proto__") return false;
    else other = true;
  }
  return true;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
/** absent, or of `type` (or null, when `nullable`) */
export const optional = (v: unknown, type: "string" | "boolean", nullable = false) =>
  v === undefined || typeof v === type || (nullable && v === null);
/** what z.record(z.unknown()) answers as it is: an object without an own __proto__ */
export const plainRecord = (v: unknown) => isObject(v) && !Object.hasOwn(v, "__proto__");
