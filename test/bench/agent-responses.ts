// The Responses client of `npm run bench:agent`: the `openai` client's responses.create with the
// 191 demo tools declared as function tools, the same 20 user turns, no session header; after the
// first request it sends only its new input with previous_response_id (the Worker rebuilds the
// conversation from the responses stored in the session). Measured like the AI SDK rows
// (agent-sdk.ts): prompt tokens upstream, repeated prefix, session objects used, and the time the
// Worker adds per client request.
import OpenAI from "openai";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import type { ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { sessionObjects, type SdkRow, type SdkTarget } from "./agent-sdk.ts";

type Call = OpenAI.Responses.ResponseFunctionToolCall;

export async function responsesConversation(
  target: SdkTarget,
  catalogTools: readonly CatalogTool[],
  turns: ReadonlyArray<readonly [string, string]>,
  system: string,
  llm: ScriptedLLM,
): Promise<SdkRow> {
  llm.reset();
  const client = new OpenAI({ baseURL: target.baseURL, apiKey: target.apiKey, maxRetries: 0, defaultHeaders: target.headers });
  const tools: OpenAI.Responses.FunctionTool[] = catalogTools.map((t) => ({
    type: "function",
    name: t.name,
    description: t.description,
    parameters: t.inputSchema,
    strict: false,
  }));
  const sessionsBefore = await sessionObjects(target.persist);
  const added: number[] = [];
  let previous: string | undefined;
  const send = async (input: OpenAI.Responses.ResponseInput) => {
    const seen = llm.requests.length;
    const started = performance.now();
    const r = await client.responses.create({ model: "gpt-4o", instructions: system, input, tools, previous_response_id: previous });
    added.push(performance.now() - started - llm.requests.slice(seen).reduce((n, q) => n + q.ms, 0));
    previous = r.id;
    return r;
  };
  for (const [goal, expected] of turns) {
    const asked = await send([{ role: "user", content: goal }]);
    const call = asked.output.find((o): o is Call => o.type === "function_call");
    if (call?.name !== expected) throw new Error(`${target.way}: "${goal}" called ${call?.name ?? "nothing"}, expected ${expected}`);
    await send([{ type: "function_call_output", call_id: call.call_id, output: `ok: ${expected} ran` }]);
  }
  const prompt = llm.requests.reduce((n, q) => n + q.usage.prompt_tokens, 0);
  const cached = llm.requests.reduce((n, q) => n + q.usage.cached_tokens, 0);
  return {
    way: target.way,
    clientRequests: added.length,
    upstreamCalls: llm.requests.length,
    promptTokens: prompt,
    cachedShare: cached / prompt,
    sessions: (await sessionObjects(target.persist)) - sessionsBefore,
    addedMsP50: [...added].sort((a, b) => a - b)[Math.floor(added.length / 2)]!,
  };
}
