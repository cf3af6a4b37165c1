// Every JSON body the Worker accepts, checked with zod before any work is done. Session and
// tool-search bodies are strict (unknown fields are errors); a chat body types and bounds what the
// agent loop reads and passes everything else (temperature, max_tokens, ...) to the upstream.
// An error names the field and the rule: `limit: must be an integer from 1 to 20`.

import { z } from "zod";
import { RESERVED_NAMES, type ChatMessage, type OpenAITool } from "./core/chat.ts";
import { ToolsearchError } from "./core/errors.ts";
import { LISTING_FORMS, type ListingRequest } from "./core/listing.ts";
import { MAX_LIMIT, MAX_QUERY, MAX_SELECT } from "./core/search.ts";

/** The value, or a bad_request naming the first field that breaks a rule. */
function check<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  if (issue.code === "unrecognized_keys") throw new ToolsearchError("bad_request", `unknown field "${issue.keys[0]}"`);
  const where = issue.path.length ? issue.path.join(".") : "body";
  const rule = issue.code === "invalid_type" && issue.received === "undefined" ? "required" : issue.message;
  throw new ToolsearchError("bad_request", `${where}: ${rule}`);
}

const int = (min: number, max: number) =>
  z
    .number({ invalid_type_error: `must be an integer from ${min} to ${max}` })
    .int(`must be an integer from ${min} to ${max}`)
    .min(min, `must be an integer from ${min} to ${max}`)
    .max(max, `must be an integer from ${min} to ${max}`);

/** a select: name: a full (exposed) name, or a grouped short name under its server (`github.create_issue`) */
const SELECT_NAME_RE = /^[a-zA-Z0-9_.:/-]{1,128}$/;

const LISTING_REQUESTS = ["auto", ...LISTING_FORMS] as const;
const LISTING_RULE = `must be ${LISTING_REQUESTS.slice(0, -1)
  .map((f) => `"${f}"`)
  .join(", ")} or "${LISTING_REQUESTS.at(-1)}"`;

/** A listing form named outside a body (the chat endpoint's x-toolsearch-listing header). */
export function parseListing(value: string | null, where: string): ListingRequest | undefined {
  if (value === null) return undefined;
  if (!(LISTING_REQUESTS as readonly string[]).includes(value)) throw new ToolsearchError("bad_request", `${where}: ${LISTING_RULE}`);
  return value as ListingRequest;
}

const createBody = z
  .object({
    model: z
      .string({ invalid_type_error: "must be a string" })
      .min(1, "must not be empty")
      .max(200, "at most 200 characters")
      .refine((m) => m.trim().length > 0, "must not be blank"),
    profile: z
      .string({ invalid_type_error: "must be a string" })
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a profile name (letters, digits, _ . -)")
      .default("default"),
    deferral: z.enum(["auto", "on", "off"], { errorMap: () => ({ message: 'must be "auto", "on" or "off"' }) }).default("auto"),
    contextWindow: int(1000, 100_000_000).optional(),
    activation: z.enum(["inject", "proxy"], { errorMap: () => ({ message: 'must be "inject" or "proxy"' }) }).default("inject"),
    listing: z.enum(LISTING_REQUESTS, { errorMap: () => ({ message: LISTING_RULE }) }).optional(),
    execution: z.enum(["client", "edge"], { errorMap: () => ({ message: 'must be "client" or "edge"' }) }).default("client"),
  })
  .strict();

export type CreateBody = z.infer<typeof createBody>;
export const parseCreateBody = (v: unknown): CreateBody => check(createBody, v);

const policyQuery = createBody.omit({ activation: true });
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

export const CHAT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_MESSAGES = 2000;
/** client tools: the 4 MiB body holds about 2,000 MCP-sized definitions (demo catalog: 1.5 KB each on average) */
export const MAX_CLIENT_TOOLS = 2000;

const toolName = z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -");

const toolCall = z
  .object({
    id: z.string().min(1).max(200),
    type: z.literal("function"),
    function: z.object({ name: z.string().max(200), arguments: z.string().max(CHAT_MAX_BODY_BYTES) }).passthrough(),
  })
  .passthrough();

const message = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
    tool_calls: z.array(toolCall).max(128).optional(),
    tool_call_id: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
  })
  .passthrough()
  .refine((m) => m.role !== "tool" || typeof m.tool_call_id === "string", {
    message: "a tool message needs tool_call_id",
    path: ["tool_call_id"],
  });

const tool = z.object({
  type: z.literal("function"),
  function: z
    .object({
      name: toolName.refine((n) => !RESERVED_NAMES.has(n), { message: "is reserved by toolsearch" }),
      description: z.string().optional(),
      parameters: z.record(z.unknown()).optional(),
    })
    .passthrough(),
});

const body = z
  .object({
    model: z.string().min(1).max(200),
    messages: z.array(message).min(1).max(MAX_MESSAGES),
    tools: z
      .array(tool)
      .max(MAX_CLIENT_TOOLS)
      .superRefine((tools, ctx) => {
        const seen = new Set<string>();
        tools.forEach((t, i) => {
          if (seen.has(t.function.name))
            ctx.addIssue({ code: "custom", message: `"${t.function.name}" is declared twice`, path: [i, "function", "name"] });
          seen.add(t.function.name);
        });
      })
      .optional(),
    // names the session (worker/chat-session.ts), and passes through to the upstream as it is
    prompt_cache_key: z.string({ invalid_type_error: "must be a string" }).max(1000, "at most 1000 characters").nullable().optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tool_choice: z.unknown().optional(),
    n: z
      .literal(1, { errorMap: () => ({ message: "only n = 1 is supported" }) })
      .nullable()
      .optional(),
  })
  .passthrough();

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: OpenAITool[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  tool_choice?: unknown;
  prompt_cache_key?: string | null;
  [passthrough: string]: unknown;
}

export const parseChatBody = (v: unknown): ChatBody => check(body, v) as ChatBody;
