// The agent endpoint's end-to-end rig: the scripted upstream model, the Worker in workerd
// (wrangler dev, the demo catalog, real Durable Objects) pointed at it, and the real `openai`
// client; plus the checks the agent tests share. `useAgentRig()` registers the hooks.
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { startScriptedLLM, type Recorded, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { sessionObjects as countSessions } from "../fixtures/session-objects.ts";
import { tempDir } from "./helpers.ts";

export const KEY = "agent-test-key-0123456789";
export const AUTH = { authorization: `Bearer ${KEY}` };
export type Msg = OpenAI.ChatCompletionMessageParam;
export type APIError = InstanceType<typeof OpenAI.APIError>;
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Rig {
  llm: ScriptedLLM;
  dev: DevServer;
  client: OpenAI;
  /** wrangler dev's state directory (Durable Objects as SQLite files) */
  persist: string;
}

/** Start the rig once for the file; each test starts with no recorded requests and no faults. */
export function useAgentRig(): Rig {
  const rig = {} as Rig;
  beforeAll(async () => {
    rig.llm = await startScriptedLLM();
    rig.persist = await tempDir("toolsearch-agent-");
    rig.dev = await startWranglerDev({
      persistTo: rig.persist,
      vars: {
        OPENAI_BASE_URL: rig.llm.url,
        OPENAI_API_KEY: "test-key",
        UPSTREAM_TIMEOUT_MS: "1500",
        UPSTREAM_MAX_RETRIES: "1",
        API_KEYS: JSON.stringify({ [KEY]: "agent-tests" }),
      },
    });
    rig.client = new OpenAI({ baseURL: `${rig.dev.url}/v1`, apiKey: KEY, maxRetries: 0 });
  }, 90_000);
  afterAll(async () => {
    await rig.dev?.stop();
    await rig.llm?.close();
  });
  beforeEach(() => rig.llm.reset());
  return rig;
}

export async function ask(
  rig: Rig,
  messages: Msg[],
  session?: string,
  headers: Record<string, string> = {},
  extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {},
) {
  const { data, response } = await rig.client.chat.completions
    .create({ model: "gpt-4o", messages, ...extra }, { headers: { ...(session ? { "x-toolsearch-session": session } : {}), ...headers } })
    .withResponse();
  const header = (h: string) => response.headers.get(h);
  return {
    data,
    message: data.choices[0]!.message,
    session: header("x-toolsearch-session")!,
    hops: Number(header("x-toolsearch-hops")),
    spliced: Number(header("x-toolsearch-spliced")),
    toolsChanged: header("x-toolsearch-tools-changed"),
  };
}

/** Every upstream request begins with the previous one (messages and tools), byte for byte. */
export function expectAppendOnly(reqs: Recorded[]) {
  for (let i = 1; i < reqs.length; i++) {
    const prev = JSON.stringify(reqs[i - 1]!.body.messages);
    const cur = JSON.stringify(reqs[i]!.body.messages);
    expect(cur.startsWith(prev.slice(0, -1)), `messages of upstream request ${i} extend request ${i - 1}`).toBe(true);
    const prevTools = JSON.stringify(reqs[i - 1]!.body.tools ?? []);
    expect(
      JSON.stringify(reqs[i]!.body.tools ?? []).startsWith(prevTools.slice(0, -1)),
      `tools of request ${i} extend request ${i - 1}`,
    ).toBe(true);
  }
}

/** How many session objects (Durable Objects) the Worker has used so far. */
export const sessionObjects = (rig: Rig): Promise<number> => countSessions(rig.persist);

export const toolResult = (id: string, content: string): Msg => ({ role: "tool", tool_call_id: id, content });
export const names = (r: Recorded) => (r.body.tools ?? []).map((t) => t.function.name);
