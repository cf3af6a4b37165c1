// The Responses endpoint's wire (POST /v1/responses): its body, typed and bounded where the Worker
// reads it. Input items are messages (a `type` may be left out, as OpenAI allows), function calls
// and their outputs, reasoning items and the hosted tool search's items (accepted, not sent to a
// Chat Completions upstream); tools
// are functions, namespaces of functions (Codex sends an MCP server so) and hosted tool_search;
// other tools (OpenAI's hosted web_search, custom tools) have nothing to run them behind a chat
// upstream: they are read as `unsupported` and left out (routes/responses.ts names them in a
// header). Any other malformed input is a 400 naming the field. Fields the Worker does not read are accepted and
// ignored, as a client library may send more than an OpenAI-compatible server uses.

import { z } from "zod";
import { RESERVED_NAMES } from "../core/chat.ts";
import { check, int, isObject, keysInOrder, optional, plainRecord, unlessQuick } from "./check.ts";
import { MAX_CLIENT_TOOLS, MAX_MESSAGES, NAME_RE, toolSearchTool, uniqueNames } from "./chat.ts";
import { option } from "./requests.ts";

const ITEM_TYPES = [
  "message",
  "function_call",
  "function_call_output",
  "reasoning",
  "tool_search_call",
  "tool_search_output",
  "mcp_approval_request",
  "mcp_approval_response",
] as const;
const TOOL_TYPES = ["function", "namespace", "tool_search"] as const;

/** A tool of a type the Worker cannot offer, kept only as its type. */
const unsupported = z.object({ type: z.literal("unsupported"), kind: z.string().max(80) });
const asUnsupported = (known: readonly string[]) => (v: unknown) =>
  v && typeof v === "object" && "type" in v && typeof v.type === "string" && !known.includes(v.type)
    ? { type: "unsupported", kind: v.type }
    : v;
const oneOf = (what: string, kinds: readonly string[]) => () => ({
  message: `unknown ${what}; supported: ${kinds.join(", ")}`,
});

const name = z
  .string({ invalid_type_error: "must be a string" })
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -")
  .refine((n) => !RESERVED_NAMES.has(n), { message: "is reserved by toolsearch" });

/** A content part: text of any kind, images and files (passed on as Chat Completions parts). */
const part = z.object({ type: z.string().max(40), text: z.string().optional(), refusal: z.string().optional() }).passthrough();
const content = z.union([z.string(), z.array(part).max(1000)]);

const message = z
  .object({
    type: z.literal("message"),
    role: z.enum(["user", "assistant", "system", "developer"], {
      errorMap: () => ({ message: 'must be "user", "assistant", "system" or "developer"' }),
    }),
    content,
    id: z.string().max(200).optional(),
  })
  .passthrough();

const functionCall = z
  .object({
    type: z.literal("function_call"),
    call_id: z.string().min(1).max(200),
    name: z.string().min(1).max(200),
    namespace: z.string().min(1).max(200).optional(),
    arguments: z.string(),
    id: z.string().max(200).optional(),
  })
  .passthrough();

const functionCallOutput = z
  .object({
    type: z.literal("function_call_output"),
    call_id: z.string().min(1).max(200),
    output: content,
  })
  .passthrough();

/** Items a chat upstream has no place for: reasoning, and the hosted tool search's own items sent back. */
const reasoning = z.object({ type: z.literal("reasoning") }).passthrough();
const searchCall = z.object({ type: z.literal("tool_search_call") }).passthrough();
const searchOutput = z.object({ type: z.literal("tool_search_output") }).passthrough();
/** POLICY.approval: the Worker's request sent back (the stored conversation has its call), and the person's answer. */
const approvalRequest = z.object({ type: z.literal("mcp_approval_request") }).passthrough();
const approvalResponse = z
  .object({
    type: z.literal("mcp_approval_response"),
    approval_request_id: z.string().min(1).max(100),
    approve: z.boolean({ invalid_type_error: "must be true or false", required_error: "required" }),
    reason: z.string().max(500).optional(),
  })
  .passthrough();

/** An item without a type but with a role is a message (OpenAI's "easy input message"). */
const item = z.preprocess(
  (v) => (v && typeof v === "object" && !("type" in v) && "role" in v ? { ...v, type: "message" } : v),
  z.discriminatedUnion(
    "type",
    [message, functionCall, functionCallOutput, reasoning, searchCall, searchOutput, approvalRequest, approvalResponse],
    {
      errorMap: (issue, ctx) =>
        issue.code === "invalid_union_discriminator" ? oneOf("item type", ITEM_TYPES)() : { message: ctx.defaultError },
    },
  ),
);

const fn = z
  .object({
    type: z.literal("function"),
    name,
    description: z.string().nullable().optional(),
    parameters: z.record(z.unknown()).nullable().optional(),
    strict: z.boolean().nullable().optional(),
    defer_loading: z.boolean().optional(),
  })
  .passthrough();

const namespace = z
  .object({
    type: z.literal("namespace"),
    name: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, _ . or -"),
    description: z.string().nullable().optional(),
    tools: z.array(z.preprocess(asUnsupported(["function"]), z.discriminatedUnion("type", [fn, unsupported]))).max(MAX_CLIENT_TOOLS),
  })
  .passthrough();

const tool = z.preprocess(
  asUnsupported(TOOL_TYPES),
  z.discriminatedUnion("type", [fn, namespace, toolSearchTool, unsupported], {
    errorMap: (issue, ctx) =>
      issue.code === "invalid_union_discriminator" ? oneOf("tool type", TOOL_TYPES)() : { message: ctx.defaultError },
  }),
);

/** A function named in tool_choice: a namespace's function by its namespace and name. */
const chosen = z
  .object({ type: z.literal("function"), name: z.string().min(1).max(200), namespace: z.string().max(200).optional() })
  .passthrough();
const toolChoice = z.union(
  [
    z.enum(["none", "auto", "required"]),
    chosen,
    z
      .object({ type: z.literal("allowed_tools"), mode: z.enum(["auto", "required"]), tools: z.array(chosen).max(MAX_CLIENT_TOOLS) })
      .passthrough(),
  ],
  { errorMap: () => ({ message: 'must be "none", "auto", "required", a function or allowed_tools' }) },
);

const toolList = z
  .array(tool)
  .max(MAX_CLIENT_TOOLS)
  .superRefine(
    uniqueNames(
      (t) => (t.type === "tool_search" || t.type === "unsupported" ? undefined : t.name),
      (i) => [i, "name"],
    ),
  );
type ToolList = z.infer<typeof toolList>;
const FN_KEYS = ["type", "name", "description", "parameters", "strict", "defer_loading"];

/** Function tools toolList answers as they are (wire/check.ts unlessQuick); namespaces and the rest go to zod. */
function unchangedFunctions(v: unknown): v is ToolList {
  if (!Array.isArray(v) || v.length > MAX_CLIENT_TOOLS) return false;
  const names = new Set<string>();
  for (const t of v) {
    if (!isObject(t) || t.type !== "function" || !keysInOrder(t, FN_KEYS, true)) return false;
    if (typeof t.name !== "string" || !NAME_RE.test(t.name) || RESERVED_NAMES.has(t.name) || names.has(t.name)) return false;
    if (!optional(t.description, "string", true) || !optional(t.strict, "boolean", true) || !optional(t.defer_loading, "boolean"))
      return false;
    if (t.parameters !== undefined && t.parameters !== null && !plainRecord(t.parameters)) return false;
    names.add(t.name);
  }
  return true;
}

/** zod's own parse of a tools list, without the one-pass check (tests compare the two). */
export const parseToolListWithZod = (v: unknown): ToolList => check(toolList, v);

const body = z
  .object({
    model: option.model,
    // a string is one user message
    input: z
      .preprocess((v) => (typeof v === "string" ? [{ type: "message", role: "user", content: v }] : v), z.array(item).max(MAX_MESSAGES))
      .optional(),
    instructions: z.string().nullable().optional(),
    tools: unlessQuick(toolList, (v) => (unchangedFunctions(v) ? v : undefined)).optional(),
    tool_choice: toolChoice.optional(),
    parallel_tool_calls: z.boolean().nullable().optional(),
    previous_response_id: z.string().min(1).max(200).nullable().optional(),
    store: z.boolean().nullable().optional(),
    stream: z.boolean().nullable().optional(),
    metadata: z.record(z.string().max(512)).nullable().optional(),
    prompt_cache_key: z.string().max(1000, "at most 1000 characters").nullable().optional(),
    max_output_tokens: int(1, 10_000_000).nullable().optional(),
    temperature: z.number().min(0).max(2).nullable().optional(),
    top_p: z.number().min(0).max(1).nullable().optional(),
    text: z
      .object({ format: z.object({ type: z.string() }).passthrough().optional(), verbosity: z.string().nullable().optional() })
      .passthrough()
      .nullable()
      .optional(),
    reasoning: z.object({ effort: z.string().nullable().optional() }).passthrough().nullable().optional(),
    user: z.string().max(1000).optional(),
    background: z
      .literal(false, { errorMap: () => ({ message: "background responses are not supported" }) })
      .nullable()
      .optional(),
    conversation: z.null({ invalid_type_error: "conversations are not supported; use previous_response_id" }).optional(),
  })
  .passthrough();

export type ResponsesBody = z.infer<typeof body>;
export type InputItem =
  z.infer<typeof message> | z.infer<typeof functionCall> | z.infer<typeof functionCallOutput> | z.infer<typeof reasoning>;
export type ResponsesTool = z.infer<typeof tool>;
export type ContentPart = z.infer<typeof part>;
export const parseResponsesBody = (v: unknown): ResponsesBody => check(body, v);
