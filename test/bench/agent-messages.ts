// The Messages client of `npm run bench:agent`: the Anthropic SDK's messages.create with the 191
// demo tools declared as its own tools, the same 20 user turns, no session header; each request
// carries the whole conversation, as Messages clients do. Through the Worker with either upstream
// kind (Chat Completions, or an Anthropic-compatible Messages server: the scripted model speaks
// both), and directly to the Messages upstream with every schema on every request. Measured like
// the AI SDK rows (agent-sdk.ts): prompt tokens upstream, repeated prefix, sessions, added time.
import Anthropic from "@anthropic-ai/sdk";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import type { ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { sdkRow, sessionObjects, type SdkRow, type SdkTarget } from "./agent-sdk.ts";

export async function messagesConversation(
  target: SdkTarget,
  catalogTools: readonly CatalogTool[],
  turns: ReadonlyArray<readonly [string, string]>,
  system: string,
  llm: ScriptedLLM,
): Promise<SdkRow> {
  llm.reset();
  const client = new Anthropic({ baseURL: target.baseURL, apiKey: target.apiKey, maxRetries: 0, defaultHeaders: target.headers });
  const tools: Anthropic.Tool[] = catalogTools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.inputSchema as Anthropic.Tool.InputSchema,
  }));
  const sessionsBefore = await sessionObjects(target.persist);
  const added: number[] = [];
  const messages: Anthropic.MessageParam[] = [];
  const send = async () => {
    const seen = llm.requests.length;
    const started = performance.now();
    const r = await client.messages.create({ model: "claude-sonnet-4-6", max_tokens: 1024, system, messages, tools });
    added.push(performance.now() - started - llm.requests.slice(seen).reduce((n, q) => n + q.ms, 0));
    messages.push({ role: "assistant", content: r.content });
    return r;
  };
  for (const [goal, expected] of turns) {
    messages.push({ role: "user", content: goal });
    const asked = await send();
    const call = asked.content.find((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    if (call?.name !== expected) throw new Error(`${target.way}: "${goal}" called ${call?.name ?? "nothing"}, expected ${expected}`);
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: `ok: ${expected} ran` }] });
    await send();
  }
  return sdkRow(target, llm, added, sessionsBefore);
}
