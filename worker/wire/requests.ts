// REST bodies and queries (/v1/sessions, tool search, calls, the policy preview) and the session
// options every surface shares (profile, deferral, activation, listing, execution: the chat
// endpoint's headers and the MCP gateway's URL reuse them). Strict: an unknown field is an error.

import { z } from "zod";
import { LISTING_FORMS } from "../core/listing.ts";
import { MAX_LIMIT, MAX_QUERY, MAX_SELECT } from "../core/search.ts";
import { check, int } from "./check.ts";

/** a select: name: a full (exposed) name, or a grouped short name under its server (`github.create_issue`) */
const SELECT_NAME_RE = /^[a-zA-Z0-9_.:/-]{1,128}$/;

const LISTING_REQUESTS = ["auto", ...LISTING_FORMS] as const;
const LISTING_RULE = `must be ${LISTING_REQUESTS.slice(0, -1)
  .map((f) => `"${f}"`)
  .join(", ")} or "${LISTING_REQUESTS.at(-1)}"`;

/** The session options every surface takes (a body field, a chat header, an MCP URL parameter). */
export const option = {
  model: z
    .string({ invalid_type_error: "must be a string" })
    .min(1, "must not be empty")
    .max(200, "at most 200 characters")
    .refine((m) => m.trim().length > 0, "must not be blank"),
  profile: z
    .string({ invalid_type_error: "must be a string" })
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a profile name (letters, digits, _ . -)"),
  deferral: z.enum(["auto", "on", "off"], { errorMap: () => ({ message: 'must be "auto", "on" or "off"' }) }),
  contextWindow: int(1000, 100_000_000),
  activation: z.enum(["inject", "proxy"], { errorMap: () => ({ message: 'must be "inject" or "proxy"' }) }),
  listing: z.enum(LISTING_REQUESTS, { errorMap: () => ({ message: LISTING_RULE }) }),
  execution: z.enum(["client", "edge"], { errorMap: () => ({ message: 'must be "client" or "edge"' }) }),
  /** code mode (docs/code-mode.md): runCode, and toolSearch answering TypeScript declarations */
  code: z.enum(["on", "off"], { errorMap: () => ({ message: 'must be "on" or "off"' }) }),
};

const createBody = z
  .object({
    model: option.model,
    profile: option.profile.default("default"),
    deferral: option.deferral.default("auto"),
    contextWindow: option.contextWindow.optional(),
    activation: option.activation.default("inject"),
    listing: option.listing.optional(),
    execution: option.execution.default("client"),
    // absent: the profile's `code` (POLICY), else off
    code: option.code.optional(),
  })
  .strict();

export type CreateBody = z.infer<typeof createBody>;
export const parseCreateBody = (v: unknown): CreateBody => check(createBody, v);

const policyQuery = createBody.omit({ activation: true, code: true });
export type PolicyQuery = z.infer<typeof policyQuery>;

/** GET /v1/catalog/policy: a session's creation fields as query parameters (numbers as digits). */
export function parsePolicyQuery(params: URLSearchParams): PolicyQuery {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of params) fields[k] = k === "contextWindow" && /^\d{1,12}$/.test(v) ? Number(v) : v;
  return check(policyQuery, fields);
}

const searchBody = z
  .object({
    query: z
      .string({ invalid_type_error: "must be a string" })
      .max(MAX_QUERY, `at most ${MAX_QUERY} characters`)
      .refine((q) => q.trim().length > 0, "must not be empty: `select:<name>` or keywords")
      .superRefine((q, ctx) => {
        const m = /^\s*select:(.*)$/is.exec(q);
        if (!m) return;
        // "shop: get_order" as copied from a grouped line: spaces around a separator are fine
        const names = m[1]!
          .split(",")
          .map((n) => n.trim().replace(/\s*([.:/])\s*/g, "$1"))
          .filter(Boolean);
        if (!names.length) ctx.addIssue({ code: "custom", message: "select: needs at least one tool name" });
        else if (names.length > MAX_SELECT)
          ctx.addIssue({ code: "custom", message: `select: takes at most ${MAX_SELECT} names, got ${names.length}` });
        const bad = names.find((n) => !SELECT_NAME_RE.test(n));
        if (bad)
          ctx.addIssue({
            code: "custom",
            message: `select: "${bad.slice(0, 80)}" is not a tool name (a full name, or <server>.<short name>: letters, digits, _ - . : /, at most 128)`,
          });
      }),
    limit: int(1, MAX_LIMIT).optional(),
  })
  .strict();

export type SearchBody = z.infer<typeof searchBody>;
export const parseSearchBody = (v: unknown): SearchBody => check(searchBody, v);

const callBody = z.object({ arguments: z.record(z.unknown(), { invalid_type_error: "must be an object" }).default({}) }).strict();

export type CallBody = z.infer<typeof callBody>;
export const parseCallBody = (v: unknown): CallBody => check(callBody, v);

/** POST /v1/sessions/:id/code: the body of an async JavaScript function (docs/code-mode.md). */
export const MAX_CODE_CHARS = 100_000;
const codeBody = z
  .object({
    code: z
      .string({ invalid_type_error: "must be a string" })
      .max(MAX_CODE_CHARS, `at most ${MAX_CODE_CHARS} characters`)
      .refine(
        (c) => c.trim().length > 0,
        "must not be empty: the body of an async function, e.g. `return await tools.<server>.<tool>({})`",
      ),
  })
  .strict();
export type CodeBody = z.infer<typeof codeBody>;
export const parseCodeBody = (v: unknown): CodeBody => check(codeBody, v);
