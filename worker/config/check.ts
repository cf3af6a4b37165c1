// How a structured var (POLICY, QUOTAS, SERVERS) is checked: whole, by its one strict zod schema,
// at the isolate's first request (a Worker has no other start). Any problem is a config_invalid
// error (503: the deployment, not the caller, is wrong) naming the setting's full path; an unknown
// key also names the closest known key at that place ("POLICY.acess is not a setting (did you
// mean access?)"), since a misspelled key would otherwise be ignored and its rules silently lost.

import { z } from "zod";
import { ToolsearchError } from "../core/errors.ts";

export const configInvalid = (message: string) => new ToolsearchError("config_invalid", message);

/** `raw` parsed by `schema`, or a config_invalid error naming the first problem (`hint` follows value errors). */
export function parseVar<S extends z.ZodTypeAny>(name: string, schema: S, raw: unknown, hint = ""): z.infer<S> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const where = [name, ...issue.path].join(".");
  if (issue.code === "unrecognized_keys") {
    const key = issue.keys[0]!;
    const known = knownKeys(schema, issue.path);
    const near = closest(key, known);
    const help = near ? `did you mean ${near}?` : `known: ${known.join(", ") || "none"}`;
    throw configInvalid(`${where}.${key} is not a setting (${help})`);
  }
  throw configInvalid(`${where}: ${issue.message}${hint}`);
}

/** The keys the schema knows for the object at `path` (records and arrays are crossed by their values). */
function knownKeys(schema: z.ZodTypeAny, path: ReadonlyArray<string | number>): string[] {
  let s: z.ZodTypeAny | undefined = schema;
  for (const segment of [...path, null]) {
    s = unwrap(s);
    if (segment === null) break;
    if (s instanceof z.ZodObject) s = (s.shape as Record<string, z.ZodTypeAny>)[String(segment)];
    else if (s instanceof z.ZodRecord) s = s.valueSchema as z.ZodTypeAny;
    else if (s instanceof z.ZodArray) s = s.element as z.ZodTypeAny;
    else return [];
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape as object) : [];
}

function unwrap(s: z.ZodTypeAny | undefined): z.ZodTypeAny | undefined {
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodEffects || s instanceof z.ZodNullable)
    s = s instanceof z.ZodEffects ? (s.innerType() as z.ZodTypeAny) : (s._def.innerType as z.ZodTypeAny);
  return s;
}

/** The known word nearest `word` (edit distance, case-insensitive), if it is near enough to be a slip of the keyboard. */
export function closest(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; d: number } | undefined;
  for (const k of known) {
    const d = distance(word.toLowerCase(), k.toLowerCase());
    if (!best || d < best.d) best = { word: k, d };
  }
  return best && best.d <= Math.max(2, Math.floor(best.word.length / 3)) ? best.word : undefined;
}

function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
