// POST /v1/messages/count_tokens: the tokens of the request the upstream would be sent after deferral, as a new session of this conversation would send it (the
// frozen listing, the client's tools kept or deferred by the same plan, tool_reference loads
// appended; tools loaded by earlier hidden searches are not counted). The Messages upstream counts
// that request itself (forwarded to its count_tokens route). A chat upstream has no token
// counting route and the Worker no tokenizer (js-tiktoken's ranks do not fit an isolate's start),
// so it is an estimate: TOKENS_PER_CHAR (o200k tokens per character, calibrated on tool
// definitions, core/client-tools.ts) times the characters of the request's JSON. Nothing is stored.

import { upstreamTools, withSystemSection } from "../core/chat.ts";
import { planClientTools, TOKENS_PER_CHAR, upstreamClientTool } from "../core/client-tools.ts";
import { settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import { planContext } from "../chat/conversation.ts";
import { clientToolSet } from "../chat/tool-set-cache.ts";
import { bareView } from "../chat/turn.ts";
import { chatView } from "../chat/conversation.ts";
import { sessionInit } from "../session/create.ts";
import type { SessionState } from "../session/state.ts";
import { countAnthropic, type AnthropicRequest } from "./anthropic-upstream.ts";
import type { PreparedTurn } from "./request.ts";

/** `anthropic`: the Messages upstream counts the request itself (forwarded to its count_tokens). */
export async function countTokens(
  c: RouteContext,
  p: PreparedTurn,
  anthropic?: AnthropicRequest,
): Promise<{ tokens: number; how: "forwarded" | "estimate" }> {
  const o = p.options;
  const declared = p.body.tools ?? [];
  const set = await clientToolSet(declared.flatMap((t) => (t.type === "function" ? [t] : [])));
  const { init, cat } = await sessionInit(
    c,
    {
      model: p.body.model,
      profile: o["x-toolsearch-profile"] ?? "default",
      deferral: "auto",
      activation: o["x-toolsearch-activation"] ?? "inject",
      listing: o["x-toolsearch-listing"],
      execution: o["x-toolsearch-execution"] ?? "client",
    },
    "count",
  );
  const plan = planClientTools(set, o["x-toolsearch-core"] ?? [], planContext(init, cat, settings(c.env).policy));
  const state: SessionState = { ...init, activations: [], createdAt: 0, lastUsedAt: 0 };
  const view = p.withoutCatalog ? bareView(state, plan) : chatView(state, plan);
  const byName = p.withoutCatalog ? set.catalog.byName : new Map([...cat.byName, ...set.catalog.byName]);
  const loads = p.plan.load.filter((n) => byName.has(n) && !view.coreTools.includes(n));
  const tools = upstreamTools(set.tools.map(upstreamClientTool), { ...view, activations: loads }, byName);
  const messages = withSystemSection(p.body.messages, view.systemSection);
  const cfg = settings(c.env).anthropic;
  if (anthropic && cfg)
    return {
      tokens: await countAnthropic(cfg, anthropic, { messages, tools }, c.request.signal ?? new AbortController().signal),
      how: "forwarded",
    };
  const chars = JSON.stringify(messages).length + JSON.stringify(tools).length;
  return { tokens: Math.ceil(chars * TOKENS_PER_CHAR), how: "estimate" };
}
