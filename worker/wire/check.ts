// The one way a request's body, query or headers are checked: a zod schema, and check(), which
// answers the value or a bad_request naming the first field that breaks a rule
// (`limit: must be an integer from 1 to 20`). Schemas live beside the surface that reads them
// (requests.ts for REST, chat.ts for the chat endpoint) and their types are z.infer of them.

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
