// A Messages request as a chat turn, pure: the chat body (messages, the tools as tools.ts defers
// them, the sampling fields), the chat header options (an own-search client keeps every tool it
// sends loaded), what the turn adds (tool_reference loads, no catalog, the regex search), and the
// conversation key. A conversation is one session without any header: Claude Code's
// `metadata.user_id` carries its session_id; otherwise the key is the conversation's beginning as
// chat derives it (model, options, the first system and user message) and the names of the tools
// sent from the start, since an own-search client's list grows as it loads tools. The upstream kind
// is part of it: the same conversation sent to the other upstream is another one.

import { canonicalJson } from "../core/canonical.ts";
import type { JsonValue, OpenAITool } from "../core/chat.ts";
import type { ChatTurnBody } from "../chat/turn.ts";
import type { ChatHeaders } from "../wire/chat.ts";
import type { MessagesBody, MessagesHeaders } from "../wire/messages.ts";
import { toolPlan, type ToolPlan } from "./tools.ts";
import { chatFields, chatMessages, chatToolChoice, systemText } from "./translate.ts";

/** the function the upstream calls for Anthropic's regex tool search (answered by the Worker) */
export function regexTool(name: string): OpenAITool {
  return {
    type: "function",
    function: {
      name,
      description:
        "Search the deferred tools by a Python regular expression (at most 200 characters) over their names and descriptions; up to 5 matching tools are loaded.",
      parameters: { type: "object", properties: { pattern: { type: "string", maxLength: 200 } }, required: ["pattern"] },
    },
  };
}

/** Claude Code's session, from metadata.user_id (a JSON string holding session_id). */
export function clientSessionId(metadata: MessagesBody["metadata"]): string | undefined {
  const raw = metadata?.user_id;
  if (!raw || !raw.startsWith("{")) return undefined;
  try {
    const v = JSON.parse(raw) as { session_id?: unknown };
    return typeof v.session_id === "string" && v.session_id ? v.session_id : undefined;
  } catch {
    return undefined;
  }
}

export interface PreparedTurn {
  body: ChatTurnBody;
  options: ChatHeaders;
  plan: ToolPlan;
  /** catalog tools stay out of the session's view */
  withoutCatalog: boolean;
}

export function prepareTurn(
  body: Pick<MessagesBody, "model" | "system" | "messages" | "tools" | "tool_choice" | "metadata"> & Partial<MessagesBody>,
  headers: MessagesHeaders,
  chatOptions: ChatHeaders,
  upstream: "chat" | "anthropic",
): PreparedTurn {
  const { messages, references } = chatMessages(systemText(body.system), body.messages, upstream === "anthropic");
  const plan = toolPlan(body, references);
  const tools = [...plan.tools, ...(plan.search.regex ? [regexTool(plan.search.regex)] : [])];
  // catalog tools join an own-search client's session only when it asks (edge execution, or the header)
  const joins =
    plan.ownSearch && chatOptions["x-toolsearch-execution"] !== "edge" && headers["x-toolsearch-catalog"] !== "on" ? "off" : "on";
  const options: ChatHeaders = { ...chatOptions };
  const keep = plan.ownSearch ? tools.map((t) => t.function.name) : plan.search.regex ? [plan.search.regex] : [];
  if (keep.length) options["x-toolsearch-core"] = [...new Set([...(chatOptions["x-toolsearch-core"] ?? []), ...keep])].sort();
  const first = (role: string) => messages.find((m) => m.role === role)?.content ?? null;
  const fromStart = tools.filter((t) => !t.defer_loading && !plan.load.includes(t.function.name)).map((t) => t.function.name);
  const own = clientSessionId(body.metadata);
  const sessionKey = own
    ? `claude-code\u0000${own}\u0000${upstream}`
    : canonicalJson({
        model: body.model,
        upstream,
        catalog: joins,
        profile: chatOptions["x-toolsearch-profile"] ?? "default",
        activation: chatOptions["x-toolsearch-activation"] ?? "inject",
        listing: chatOptions["x-toolsearch-listing"] ?? null,
        execution: chatOptions["x-toolsearch-execution"] ?? "client",
        system: first("system"),
        user: first("user"),
        // the app's end user: two users never share a session (M9)
        endUser: body.metadata?.user_id ?? null,
        tools: plan.ownSearch ? fromStart.filter((n) => !plan.custom.get(n)?.defer_loading) : tools.map((t) => t.function.name),
      });
  const fields: Record<string, JsonValue> = body.max_tokens !== undefined ? chatFields(body as MessagesBody) : {};
  const endUser = body.metadata?.user_id;
  const chatBody: ChatTurnBody = {
    ...fields,
    ...chatToolChoice(body.tool_choice),
    model: body.model,
    messages,
    tools,
    sessionKey,
    // the principal's user when the key names none (chat/conversation.ts; R2-M5)
    ...(endUser ? { endUser } : {}),
  };
  return { body: chatBody, options, plan, withoutCatalog: joins === "off" };
}
