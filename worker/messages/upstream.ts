// The Anthropic upstream for one Messages request: the client's fields it keeps (model, max_tokens,
// sampling, thinking, metadata, its system blocks with cache_control) and its betas, less the one
// only deferral needs (the Worker applied deferral: the upstream gets no defer_loading, no
// tool_reference, no placeholder, so it needs no advanced-tool-use beta).

import type { JsonValue } from "../core/chat.ts";
import type { TurnExtras } from "../chat/turn.ts";
import type { RouteContext } from "../http.ts";
import { settings } from "../settings.ts";
import type { MessagesBody, MessagesHeaders } from "../wire/messages.ts";
import type { ThinkingEvent } from "./anthropic-stream.ts";
import { callAnthropic, type AnthropicRequest } from "./anthropic-upstream.ts";

/** betas that ask for deferral itself: the Worker answers them, the upstream never sees their shapes */
export const DEFERRAL_BETAS = new Set(["advanced-tool-use-2025-11-20", "tool-search-tool-2025-10-19"]);

export function keptBetas(header: string | undefined): string | undefined {
  const kept = (header ?? "")
    .split(",")
    .map((b) => b.trim())
    .filter((b) => b && !DEFERRAL_BETAS.has(b));
  return kept.length ? kept.join(",") : undefined;
}

/** What the Anthropic upstream keeps of the request. */
export function anthropicRequest(body: Partial<MessagesBody> & Pick<MessagesBody, "model">, headers: MessagesHeaders): AnthropicRequest {
  const fields: Record<string, JsonValue> = { model: body.model };
  if (body.max_tokens !== undefined) fields.max_tokens = body.max_tokens;
  for (const k of ["temperature", "top_p", "top_k", "stop_sequences", "thinking", "metadata"] as const)
    if (body[k] !== undefined) fields[k] = body[k] as JsonValue;
  const parallel = !(body.tool_choice && "disable_parallel_tool_use" in body.tool_choice && body.tool_choice.disable_parallel_tool_use);
  return { fields, system: body.system, parallel, betas: keptBetas(headers["anthropic-beta"]) };
}

/** The turn's model call on the Anthropic upstream; `onThinking` sees each round's thinking as it comes (a streaming client). */
export function anthropicCaller(
  c: RouteContext,
  body: MessagesBody,
  headers: MessagesHeaders,
  onThinking?: (e: ThinkingEvent) => void,
): NonNullable<TurnExtras["callModel"]> {
  const cfg = settings(c.env).anthropic!;
  const req = anthropicRequest(body, headers);
  return (round, opts) => callAnthropic(cfg, req, round, { ...opts, onThinking });
}
