// The Messages endpoint's wire (POST /v1/messages, /v1/messages/count_tokens): Anthropic's request
// body, typed and bounded where the Worker reads it, and the header set on top of the chat
// endpoint's (which upstream, whether catalog tools join). Content blocks are the types a client
// sends back (text, image, document, tool_use, tool_result with tool_reference blocks, thinking,
// server_tool_use, tool_search_tool_result); any other type is a 400 naming it. Tools are custom
// tools (`defer_loading` read here, never sent on), Anthropic's two tool search server tools, and
// other server tools, kept only as their type (nothing here runs them: left out, and said so).
// Fields the Worker does not read (cache_control, citations, ...) are accepted and kept.

import { z } from "zod";
import { RESERVED_NAMES } from "../core/chat.ts";
import { check, checkHeaders, int, isObject, keysInOrder, optional, unlessQuick } from "./check.ts";
import { MAX_CLIENT_TOOLS, MAX_MESSAGES, NAME_RE } from "./chat.ts";
import { option } from "./requests.ts";

export const BLOCK_TYPES = [
  "text",
  "image",
  "document",
  "tool_use",
  "tool_result",
  "thinking",
  "redacted_thinking",
  "server_tool_use",
  "tool_search_tool_result",
] as const;
export const SEARCH_TOOL_TYPES = ["tool_search_tool_bm25_20251119", "tool_search_tool_regex_20251119"] as const;

const oneOf = (what: string, kinds: readonly string[]) => ({ message: `unknown ${what}; supported: ${kinds.join(", ")}` });
const union = <T extends [z.ZodDiscriminatedUnionOption<"type">, ...z.ZodDiscriminatedUnionOption<"type">[]]>(
  what: string,
  kinds: readonly string[],
  options: T,
) =>
  z.discriminatedUnion("type", options, {
    errorMap: (issue, ctx) => (issue.code === "invalid_union_discriminator" ? oneOf(what, kinds) : { message: ctx.defaultError }),
  });

const text = z.object({ type: z.literal("text"), text: z.string() }).passthrough();
const image = z.object({ type: z.literal("image"), source: z.object({ type: z.string() }).passthrough() }).passthrough();
const document = z.object({ type: z.literal("document"), source: z.object({ type: z.string() }).passthrough() }).passthrough();
const reference = z.object({ type: z.literal("tool_reference"), tool_name: z.string().min(1).max(200) }).passthrough();

const RESULT_PARTS = ["text", "image", "document", "tool_reference", "search_result"] as const;
const searchResult = z.object({ type: z.literal("search_result") }).passthrough();
const resultPart = union("tool_result content type", RESULT_PARTS, [text, image, document, reference, searchResult]);

const id = z.string().min(1).max(200);
const toolUse = z.object({ type: z.literal("tool_use"), id, name: z.string().min(1).max(200), input: z.record(z.unknown()) }).passthrough();
const toolResult = z
  .object({
    type: z.literal("tool_result"),
    tool_use_id: id,
    content: z.union([z.string(), z.array(resultPart).max(1000)]).optional(),
    is_error: z.boolean().optional(),
  })
  .passthrough();
const thinking = z.object({ type: z.literal("thinking"), thinking: z.string() }).passthrough();
const redacted = z.object({ type: z.literal("redacted_thinking"), data: z.string() }).passthrough();
const serverToolUse = z
  .object({ type: z.literal("server_tool_use"), id, name: z.string().max(200), input: z.record(z.unknown()) })
  .passthrough();
const searchToolResult = z.object({ type: z.literal("tool_search_tool_result"), tool_use_id: id }).passthrough();

const block = union("content block type", BLOCK_TYPES, [
  text,
  image,
  document,
  toolUse,
  toolResult,
  thinking,
  redacted,
  serverToolUse,
  searchToolResult,
]);

const message = z
  .object({
    role: z.enum(["user", "assistant"], { errorMap: () => ({ message: 'must be "user" or "assistant"' }) }),
    // a string is one text block (the translation gives both the same bytes)
    content: z.preprocess(
      (v) => (typeof v === "string" ? [{ type: "text", text: v }] : v),
      z.array(block, { invalid_type_error: "must be a string or an array of blocks" }).max(1000),
    ),
  })
  .passthrough();

const toolName = z
  .string({ invalid_type_error: "must be a string" })
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be 1-64 letters, digits, _ or -")
  .refine((n) => !RESERVED_NAMES.has(n), { message: "is reserved by toolsearch" });

const customTool = z
  .object({
    type: z.literal("custom").optional(),
    name: toolName,
    description: z.string().optional(),
    input_schema: z.object({ type: z.literal("object") }).passthrough(),
    defer_loading: z.boolean().optional(),
  })
  .passthrough();
const searchTool = z
  .object({ type: z.enum(SEARCH_TOOL_TYPES), name: z.string().max(64), defer_loading: z.boolean().optional() })
  .passthrough();
/** a server tool of another kind (web search, code execution, ...): kept as its type */
const otherTool = z.object({ type: z.string().max(80), name: z.string().max(64).optional() }).passthrough();
const tool = z.union([customTool, searchTool, otherTool], {
  errorMap: (issue, ctx) =>
    issue.code === "invalid_union"
      ? { message: "must be a custom tool (name, input_schema) or a server tool" }
      : { message: ctx.defaultError },
});

const toolList = z
  .array(tool)
  .max(MAX_CLIENT_TOOLS)
  .superRefine((tools, ctx) => {
    const seen = new Set<string>();
    tools.forEach((t, i) => {
      const n = typeof t.name === "string" ? t.name : undefined;
      if (n !== undefined && seen.has(n)) ctx.addIssue({ code: "custom", message: `"${n}" is declared twice`, path: [i, "name"] });
      if (n !== undefined) seen.add(n);
    });
  });
type ToolList = z.infer<typeof toolList>;
const CUSTOM_KEYS = ["type", "name", "description", "input_schema", "defer_loading"];

/**
 * Custom tools as toolList answers them (wire/check.ts unlessQuick), server tools left to zod:
 * the tools as sent, but an input_schema whose `type` is not its first key copied with `type`
 * first, as zod orders it (a catalog's canonical schemas sort it last).
 */
function quickCustomTools(v: unknown): ToolList | undefined {
  if (!Array.isArray(v) || v.length > MAX_CLIENT_TOOLS) return undefined;
  const names = new Set<string>();
  const out: ToolList = [];
  for (const t of v) {
    if (!isObject(t) || (t.type !== undefined && t.type !== "custom") || !keysInOrder(t, CUSTOM_KEYS, true)) return undefined;
    if (typeof t.name !== "string" || !NAME_RE.test(t.name) || RESERVED_NAMES.has(t.name) || names.has(t.name)) return undefined;
    if (!optional(t.description, "string") || !optional(t.defer_loading, "boolean")) return undefined;
    const schema = t.input_schema;
    if (!isObject(schema) || schema.type !== "object" || Object.hasOwn(schema, "__proto__")) return undefined;
    names.add(t.name);
    out.push((Object.keys(schema)[0] === "type" ? t : { ...t, input_schema: { type: "object", ...schema } }) as ToolList[number]);
  }
  return out;
}

/** zod's own parse of a tools list, without the one-pass check (tests compare the two). */
export const parseToolListWithZod = (v: unknown): ToolList => check(toolList, v);

const toolChoice = z.discriminatedUnion(
  "type",
  [
    z.object({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }).passthrough(),
    z.object({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }).passthrough(),
    z.object({ type: z.literal("none") }).passthrough(),
    z
      .object({ type: z.literal("tool"), name: z.string().min(1).max(200), disable_parallel_tool_use: z.boolean().optional() })
      .passthrough(),
  ],
  { errorMap: () => ({ message: 'must be {"type": "auto" | "any" | "none" | "tool"}' }) },
);

const system = z.union([z.string(), z.array(text).max(100)], {
  errorMap: () => ({ message: "must be a string or an array of text blocks" }),
});

const fields = {
  model: option.model,
  system: system.optional(),
  messages: z.array(message).min(1).max(MAX_MESSAGES),
  tools: unlessQuick(toolList, quickCustomTools).optional(),
  tool_choice: toolChoice.optional(),
  thinking: z.object({ type: z.string() }).passthrough().optional(),
  metadata: z
    .object({ user_id: z.string().max(1000).nullable().optional() })
    .passthrough()
    .optional(),
};

const body = z
  .object({
    ...fields,
    max_tokens: int(1, 10_000_000),
    stream: z.boolean().optional(),
    temperature: z.number().min(0).max(2).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: int(0, 100_000).optional(),
    stop_sequences: z.array(z.string().max(1000)).max(16).optional(),
  })
  .passthrough();
const countBody = z.object(fields).passthrough();

export type MessagesBody = z.infer<typeof body>;
export type CountTokensBody = z.infer<typeof countBody>;
export type MessageParam = z.infer<typeof message>;
export type ContentBlock = z.infer<typeof block>;
export type ResultPart = z.infer<typeof resultPart>;
export type MessagesTool = z.infer<typeof tool>;
export type CustomTool = z.infer<typeof customTool>;
export type ToolChoice = z.infer<typeof toolChoice>;
export const parseMessagesBody = (v: unknown): MessagesBody => check(body, v);
export const parseCountTokensBody = (v: unknown): CountTokensBody => check(countBody, v);

/** Custom tools are told from server tools by their input_schema (the type may be left out). */
export const isCustomTool = (t: MessagesTool): t is CustomTool => "input_schema" in t && (t.type === undefined || t.type === "custom");

/** The Messages headers besides the chat endpoint's: which upstream answers, and catalog tools joining an own-search session. */
const messagesHeaders = z.object({
  "x-toolsearch-upstream": z.enum(["anthropic", "chat"], { errorMap: () => ({ message: 'must be "anthropic" or "chat"' }) }).optional(),
  "x-toolsearch-catalog": z.literal("on", { errorMap: () => ({ message: 'must be "on"' }) }).optional(),
  "anthropic-beta": z.string().max(2000).optional(),
  "anthropic-version": z.string().max(100).optional(),
});
export type MessagesHeaders = z.infer<typeof messagesHeaders>;
export function parseMessagesHeaders(headers: Headers): MessagesHeaders {
  return checkHeaders(messagesHeaders, headers);
}
