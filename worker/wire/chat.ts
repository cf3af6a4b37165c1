// The chat endpoint's wire: its body (typed and bounded where the agent loop reads it; everything
// else, temperature, max_tokens, ..., passes to the upstream) and its x-toolsearch-* header set.

import { z } from "zod";
import { EXPOSED_NAME_RE } from "../core/catalog.ts";
import { RESERVED_NAMES } from "../core/chat.ts";
import { check, checkHeaders, int, isObject, keysInOrder, optional, plainRecord, unlessQuick } from "./check.ts";
import { option } from "./requests.ts";

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

/** Any JSON value: what the fields a message may carry besides those read here can hold. */
const jsonValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.object({}).passthrough(), z.array(z.unknown())]);

const message = z
  .object({
    role: z.enum(["system", "developer", "user", "assistant", "tool"]),
    content: z.union([z.string(), z.array(z.unknown()), z.null()]).optional(),
    tool_calls: z.array(toolCall).max(128).optional(),
    tool_call_id: z.string().max(200).optional(),
    name: z.string().max(200).optional(),
  })
  .catchall(jsonValue)
  .refine((m) => m.role !== "tool" || typeof m.tool_call_id === "string", {
    message: "a tool message needs tool_call_id",
    path: ["tool_call_id"],
  });

export const functionTool = z.object({
  type: z.literal("function"),
  function: z
    .object({
      name: toolName.refine((n) => !RESERVED_NAMES.has(n), { message: "is reserved by toolsearch" }),
      description: z.string().optional(),
      parameters: z.record(z.unknown()).optional(),
      defer_loading: z.boolean().optional(),
    })
    .passthrough(),
  // OpenAI's deferred-tool flag: the client decides which of its tools are deferred (core/client-tools.ts)
  defer_loading: z.boolean().optional(),
});

/** OpenAI's hosted tool search: answered by the Worker's own search, never sent upstream. */
export const toolSearchTool = z
  .object({
    type: z.literal("tool_search"),
    execution: z.literal("server", { errorMap: () => ({ message: 'only "server" (hosted) tool search is supported' }) }).optional(),
  })
  .passthrough();

const tool = z.discriminatedUnion("type", [functionTool, toolSearchTool], {
  errorMap: (issue, ctx) => ({
    message: issue.code === "invalid_union_discriminator" ? 'must be "function" or "tool_search"' : ctx.defaultError,
  }),
});

/** Tools: names unique (a hosted tool_search has none). */
export function uniqueNames<T extends { type: string }>(name: (t: T) => string | undefined, path: (i: number) => (string | number)[]) {
  return (tools: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string>();
    tools.forEach((t, i) => {
      const n = name(t);
      if (n === undefined) return;
      if (seen.has(n)) ctx.addIssue({ code: "custom", message: `"${n}" is declared twice`, path: path(i) });
      seen.add(n);
    });
  };
}

const toolList = z
  .array(tool)
  .max(MAX_CLIENT_TOOLS)
  .superRefine(
    uniqueNames(
      (t) => (t.type === "function" ? t.function.name : undefined),
      (i) => [i, "function", "name"],
    ),
  );
type ToolList = z.infer<typeof toolList>;

const TOOL_KEYS = ["type", "function", "defer_loading"];
const FUNCTION_KEYS = ["name", "description", "parameters", "defer_loading"];
export const NAME_RE = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Function tools that toolList would answer unchanged, its own values in the same key order:
 * checked in one pass, without zod's copy of every tool and schema (1.1 ms for 191 MCP tools,
 * and its garbage). Anything else (a tool_search tool, another key order, any rule broken) is
 * false, and zod parses the tools and words the error as before.
 */
function unchangedFunctionTools(v: unknown): v is ToolList {
  if (!Array.isArray(v) || v.length > MAX_CLIENT_TOOLS) return false;
  const names = new Set<string>();
  for (const t of v) {
    if (!isObject(t) || t.type !== "function" || !keysInOrder(t, TOOL_KEYS, false) || !optional(t.defer_loading, "boolean")) return false;
    const f = t.function;
    if (!isObject(f) || !keysInOrder(f, FUNCTION_KEYS, true)) return false;
    if (typeof f.name !== "string" || !NAME_RE.test(f.name) || RESERVED_NAMES.has(f.name) || names.has(f.name)) return false;
    if (!optional(f.description, "string") || !optional(f.defer_loading, "boolean")) return false;
    if (f.parameters !== undefined && !plainRecord(f.parameters)) return false;
    names.add(f.name);
  }
  return true;
}

/** toolList, with the usual case (function tools only, already in zod's shape) answered as it is. */
const tools = unlessQuick(toolList, (v) => (unchangedFunctionTools(v) ? v : undefined));

const body = z
  .object({
    model: z.string().min(1).max(200),
    messages: z.array(message).min(1).max(MAX_MESSAGES),
    tools: tools.optional(),
    // names the session (chat/conversation.ts), and passes through to the upstream as it is
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

export type ChatBody = z.infer<typeof body>;
export const parseChatBody = (v: unknown): ChatBody => check(body, v);

/** zod's own parse of a tools list, without the one-pass check (tests compare the two). */
export const parseToolListWithZod = (v: unknown): ToolList => check(toolList, v);

/** A header's integer, given as digits. */
const intText = (min: number, max: number) =>
  z
    .string()
    .transform((v) => (/^-?\d{1,12}$/.test(v) ? Number(v) : NaN))
    .pipe(int(min, max));

/** x-toolsearch-core: client tools to keep loaded, comma-separated; sorted and deduplicated. */
const coreNames = z
  .string()
  .transform((raw) =>
    [
      ...new Set(
        raw
          .split(",")
          .map((n) => n.trim())
          .filter(Boolean),
      ),
    ].sort(),
  )
  .superRefine((names, ctx) => {
    const bad = names.find((n) => !EXPOSED_NAME_RE.test(n));
    if (bad) ctx.addIssue({ code: "custom", message: `"${bad.slice(0, 80)}" is not a tool name (letters, digits, _ and -, at most 64)` });
    if (names.length > MAX_CLIENT_TOOLS) ctx.addIssue({ code: "custom", message: `at most ${MAX_CLIENT_TOOLS} names` });
  });

/** The chat endpoint's headers: the session to use, or the options of the one a request creates, and loop bounds. */
const chatHeaders = z.object({
  "x-toolsearch-session": z.string().optional(),
  "x-toolsearch-profile": option.profile.optional(),
  "x-toolsearch-activation": option.activation.optional(),
  "x-toolsearch-listing": option.listing.optional(),
  "x-toolsearch-execution": option.execution.optional(),
  "x-toolsearch-code": option.code.optional(),
  "x-toolsearch-core": coreNames.optional(),
  "x-toolsearch-max-hops": intText(0, 10).optional(),
  "x-toolsearch-max-edge-rounds": intText(1, 20).optional(),
});

export type ChatHeaders = z.infer<typeof chatHeaders>;
export function parseChatHeaders(headers: Headers): ChatHeaders {
  return checkHeaders(chatHeaders, headers);
}
