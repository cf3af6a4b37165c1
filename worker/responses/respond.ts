// A finished turn as a Responses answer, pure: the agent's message as output items (its text as
// one message, each call as a function_call named in the client's own form, namespace and all),
// usage in the Responses shape, and the response object echoing what the request asked for. The
// output's chat form (what a client sending these items back would give) is computed by the same
// translation as its input, so a stored response and a replayed one are the same bytes upstream.
// echoJson writes those objects with the request's tools stringified once (its marker is random:
// the one impure part).

import type { AgentResult } from "../core/agent.ts";
import { textOf, type ChatMessage, type JsonValue, type Usage } from "../core/chat.ts";
import type { ResponsesBody } from "../wire/responses.ts";
import type { OutputItem, ResponseObject, ResponsesUsage } from "./shapes.ts";
import { chatMessages, type ToolNames } from "./translate.ts";

export function responsesUsage(u: Usage): ResponsesUsage {
  return {
    input_tokens: u.prompt_tokens,
    input_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.total_tokens,
  };
}

/** The message item's id for response `id` (the same while streaming and when done). */
export const messageItemId = (id: string) => `msg_${id.slice(5)}`;

/**
 * With a hosted tool_search tool, OpenAI reports the search in the output: a tool_search_call and
 * its tool_search_output with the definitions loaded (clients such as the Agents SDK refuse a call
 * to a deferred tool no search output loaded). Here: the client's tools this turn's hidden rounds
 * loaded, in the client's own form. None loaded, no items.
 */
export function searchItems(loaded: readonly string[], names: ToolNames, id: string): OutputItem[] {
  const own = loaded.flatMap((n) => names.get(n) ?? []);
  if (!own.length) return [];
  const tools: JsonValue[] = [];
  const spaces = new Map<string, JsonValue[]>();
  for (const t of own) {
    if (!t.namespace) tools.push(t.def);
    else if (spaces.has(t.namespace.name)) spaces.get(t.namespace.name)!.push(t.def);
    else {
      const fns: JsonValue[] = [t.def];
      spaces.set(t.namespace.name, fns);
      tools.push({ type: "namespace", name: t.namespace.name, description: t.namespace.description ?? "", tools: fns });
    }
  }
  const call = `ts_${id.slice(5)}`;
  const query = `select:${own.map((t) => (t.namespace ? `${t.namespace.name}.${t.name}` : t.name)).join(",")}`;
  return [
    { type: "tool_search_call", id: `tsc_${id.slice(5)}`, call_id: call, execution: "server", status: "completed", arguments: { query } },
    { type: "tool_search_output", id: `tso_${id.slice(5)}`, call_id: call, execution: "server", status: "completed", tools },
  ];
}

export function outputItems(message: ChatMessage, id: string, names: ToolNames, searched: readonly OutputItem[] = []): OutputItem[] {
  const items: OutputItem[] = [];
  const text = textOf(message.content);
  if (text)
    items.push({
      type: "message",
      id: messageItemId(id),
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text, annotations: [], logprobs: [] }],
    });
  items.push(...searched);
  for (const call of message.tool_calls ?? []) {
    const own = names.get(call.function.name);
    items.push({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: own?.name ?? call.function.name,
      ...(own?.namespace ? { namespace: own.namespace.name } : {}),
      arguments: call.function.arguments,
      status: "completed",
    });
  }
  return items;
}

/** The output as the chat messages a client would send back. */
export function outputAsChat(items: readonly OutputItem[]): ChatMessage[] {
  return chatMessages(items, new Set(), "output");
}

export interface ResponseMeta {
  id: string;
  created: number;
  model: string;
  previous: string | null;
  store: boolean;
}

/** The response object: in progress (result null) or finished. */
export function responseObject(body: ResponsesBody, meta: ResponseMeta, result: AgentResult | null, output: OutputItem[]): ResponseObject {
  const incomplete = result?.finishReason === "length";
  return {
    id: meta.id,
    object: "response",
    created_at: meta.created,
    status: !result ? "in_progress" : incomplete ? "incomplete" : "completed",
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    model: meta.model,
    output,
    usage: result ? responsesUsage(result.usage) : null,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
    previous_response_id: meta.previous,
    store: meta.store,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    temperature: body.temperature ?? null,
    top_p: body.top_p ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    text: body.text ?? { format: { type: "text" } },
    reasoning: body.reasoning ?? null,
    truncation: "disabled",
    background: false,
  };
}

/**
 * JSON of events and answers that echo the request's tools, with the tools stringified once per
 * request: a response object (the answer, and the created, in_progress and completed events) goes
 * through JSON.stringify with a marker in place of its tools, and the marker is replaced by the
 * tools' JSON (191 MCP tools are 280 KB, stringified three times in a stream). The marker is
 * random per request, so no text of the client's can name it. `toolsText`: the tools' JSON (the
 * route takes it from the tool-set cache, which makes it once per tools text).
 */
export function echoJson(tools: readonly unknown[], toolsText: () => string = () => JSON.stringify(tools)): (value: unknown) => string {
  const marker = `\u0000tools ${crypto.randomUUID()}`;
  const quoted = JSON.stringify(marker);
  let toolsJson: string | undefined;
  const replacer = (key: string, v: unknown) => (key === "tools" && v === tools ? marker : v);
  return (value) => {
    const text = JSON.stringify(value, replacer);
    const at = text.indexOf(quoted);
    return at < 0 ? text : text.slice(0, at) + (toolsJson ??= toolsText()) + text.slice(at + quoted.length);
  };
}
