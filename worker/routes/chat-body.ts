// The request body of /v1/chat/completions, checked with zod before any work: the fields the agent
// loop reads are typed and bounded, everything else (temperature, max_tokens, user, ...) passes
// through to the upstream untouched. The error names the field and the rule.

import { z } from "zod";
import { RESERVED_NAMES, type ChatMessage, type OpenAITool } from "../core/chat.ts";
import { ToolsearchError } from "../core/errors.ts";

export const CHAT_MAX_BODY_BYTES = 4 * 1024 * 1024;
export const MAX_MESSAGES = 2000;
export const MAX_CLIENT_TOOLS = 128;

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
  .refine((m) => m.role !== "tool" || typeof m.tool_call_id === "string", { message: "a tool message needs tool_call_id", path: ["tool_call_id"] });

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
    tools: z.array(tool).max(MAX_CLIENT_TOOLS).optional(),
    stream: z.boolean().nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).passthrough().nullable().optional(),
    tool_choice: z.unknown().optional(),
    n: z.literal(1, { errorMap: () => ({ message: "only n = 1 is supported" }) }).nullable().optional(),
  })
  .passthrough();

export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: OpenAITool[];
  stream?: boolean | null;
  stream_options?: { include_usage?: boolean } | null;
  tool_choice?: unknown;
  [passthrough: string]: unknown;
}

/** The body, or a bad_request naming the first field that breaks a rule. */
export function parseChatBody(value: Record<string, unknown>): ChatBody {
  const r = body.safeParse(value);
  if (r.success) return r.data as ChatBody;
  const issue = r.error.issues[0]!;
  const where = issue.path.length ? issue.path.join(".") : "body";
  throw new ToolsearchError("bad_request", `${where}: ${issue.message}`);
}
