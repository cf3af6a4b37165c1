// The AI SDK client of `npm run bench:agent`: `generateText` with all 191 demo tools declared with
// their own `execute` (the catalog's names, as a client connected to the same MCP servers would
// have them) and `stopWhen`, 20 user turns, no session header. Direct, every schema goes to the
// model on every request (static preloading); through the Worker (base URL only) the tools are
// deferred, one session serves the conversation, and each request extends the previous one.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage, type ToolSet } from "ai";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import type { ScriptedLLM } from "../fixtures/scripted-llm.ts";

// the SDK warns, once per request, that it drops `propertyNames` from a demo schema
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

export interface SdkRow {
  way: string;
  clientRequests: number;
  upstreamCalls: number;
  promptTokens: number;
  cachedShare: number;
  /** Durable Objects the Worker used; null when the client talks to the model directly */
  sessions: number | null;
  /** per client request (one model call of the SDK), p50: its time at the client minus the upstream's own time */
  addedMsP50: number;
}

export interface SdkTarget {
  way: string;
  baseURL: string;
  apiKey: string;
  headers?: Record<string, string>;
  /** wrangler dev's state directory, to count session objects */
  persist?: string;
}

export { sessionObjects } from "../fixtures/session-objects.ts";
import { sessionObjects } from "../fixtures/session-objects.ts";

export async function aiSdkConversation(
  target: SdkTarget,
  tools: readonly CatalogTool[],
  turns: ReadonlyArray<readonly [string, string]>,
  system: string,
  llm: ScriptedLLM,
): Promise<SdkRow> {
  llm.reset();
  const model = createOpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, headers: target.headers }).chat("gpt-4o");
  const ran: string[] = [];
  const toolSet: ToolSet = Object.fromEntries(
    tools.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema(t.inputSchema),
        execute: async () => (ran.push(t.name), `ok: ${t.name} ran`),
      }),
    ]),
  );
  const sessionsBefore = await sessionObjects(target.persist);
  const messages: ModelMessage[] = [];
  // each model call the SDK makes is one HTTP request: timed from its start to its end
  const added: number[] = [];
  let started = 0;
  let seen = 0;
  const onLanguageModelCallStart = () => {
    started = performance.now();
    seen = llm.requests.length;
  };
  const onLanguageModelCallEnd = () => {
    added.push(performance.now() - started - llm.requests.slice(seen).reduce((n, q) => n + q.ms, 0));
  };
  for (const [goal, expected] of turns) {
    messages.push({ role: "user", content: goal });
    const r = await generateText({
      model,
      system,
      messages,
      tools: toolSet,
      stopWhen: stepCountIs(5),
      onLanguageModelCallStart,
      onLanguageModelCallEnd,
    });
    if (ran.at(-1) !== expected) throw new Error(`${target.way}: "${goal}" ran ${ran.at(-1) ?? "nothing"}, expected ${expected}`);
    messages.push(...r.responseMessages);
  }
  return sdkRow(target, llm, added, sessionsBefore);
}

export function aiSdkTable(rows: SdkRow[]): string {
  // each row compares with the direct row before it (the AI SDK's; for the Messages rows, the Messages one)
  let direct = rows[0]!;
  const fewer = (r: SdkRow) => {
    if (r.sessions === null) direct = r;
    return r === direct ? "-" : `${((1 - r.promptTokens / direct.promptTokens) * 100).toFixed(1)}%`;
  };
  return [
    "The AI SDK (`generateText` + `@ai-sdk/openai` `.chat()`, tools with `execute`, `stopWhen: stepCountIs(5)`) declaring all 191 demo tools, the same 20 turns; through the Worker it changes only its base URL (proxy: plus a static `x-toolsearch-activation` header). The Responses rows (agent-responses.ts): the `openai` client's `responses.create` at /v1/responses with the same 191 tools as function tools and the same turns, sending only its new input with `previous_response_id`; fewer than direct compares with the AI SDK's direct row (the same tools and turns, every schema on every request). The Messages rows (agent-messages.ts): the Anthropic SDK's `messages.create` at /v1/messages with the same 191 tools as its own tools and the same turns, the whole conversation in each request, no session header; through the Worker over the Chat Completions upstream or the Messages upstream (`x-toolsearch-upstream`; the scripted model speaks both, usage as each protocol reports it: the repeated prefix is cache_read_input_tokens over every input token on the Messages upstream); fewer than direct compares with the Messages direct row (every schema to the Messages upstream on every request). Targets: at least 90% fewer prompt tokens than direct; at least 95% repeated prefix in `proxy`; 1 session.",
    "",
    "| way | client requests | upstream calls | prompt tokens sent | fewer than direct | repeated prefix | sessions used | added ms per client request (p50) |",
    "|---|---|---|---|---|---|---|---|",
    ...rows.map(
      (r) =>
        `| ${r.way} | ${r.clientRequests} | ${r.upstreamCalls} | ${r.promptTokens.toLocaleString("en-US")} | ${fewer(r)} | ${(r.cachedShare * 100).toFixed(1)}% | ${r.sessions ?? "-"} | ${r.addedMsP50.toFixed(1)} |`,
    ),
  ].join("\n");
}

/** The row of one conversation: what the scripted upstream recorded, and what the client added. */
export async function sdkRow(target: SdkTarget, llm: ScriptedLLM, added: number[], sessionsBefore: number): Promise<SdkRow> {
  const prompt = llm.requests.reduce((n, q) => n + q.usage.prompt_tokens, 0);
  const cached = llm.requests.reduce((n, q) => n + q.usage.cached_tokens, 0);
  return {
    way: target.way,
    clientRequests: added.length,
    upstreamCalls: llm.requests.length,
    promptTokens: prompt,
    cachedShare: cached / prompt,
    sessions: target.persist ? (await sessionObjects(target.persist)) - sessionsBefore : null,
    addedMsP50: [...added].sort((a, b) => a - b)[Math.floor(added.length / 2)]!,
  };
}
