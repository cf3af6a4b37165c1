// The request path's pieces in Node with the project's own modules, for `npm run bench -- floor`
// (test/bench/floor.ts): per protocol, the 191-tool body's JSON.parse, the wire check (zod, or the
// one-pass check it falls back from), a JSON.stringify of the tools (the tool-set key before issue
// 38) and the raw-member scan that replaced it, and the body read with its tools known (parsed
// before, core/known-member.ts): found before any scan (now) and after a scan of the whole text; then one upstream call through the OpenAI SDK
// (a new client, a kept one: what the Worker did before), through the Worker's own callUpstream
// (chat/model-client.ts: what it does now) and as a bare fetch, against the instant upstream. Medians of N
// runs after warm-up, ms. Prints one JSON object.
//   node test/bench/floor/pieces.ts <catalog file>
import { readFileSync } from "node:fs";
import OpenAI from "openai";
import { callUpstream } from "../../../worker/chat/model-client.ts";
import { memberText } from "../../../worker/core/json-member.ts";
import { parseKnown } from "../../../worker/core/known-member.ts";
import { parseChatBody } from "../../../worker/wire/chat.ts";
import { parseMessagesBody } from "../../../worker/wire/messages.ts";
import { parseResponsesBody } from "../../../worker/wire/responses.ts";
import { clientTools, requestBody } from "./requests.ts";
import { startInstantUpstream } from "./upstream.ts";

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function time(n: number, f: () => unknown): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n + 20; i++) {
    const t = performance.now();
    await f();
    if (i >= 20) xs.push(performance.now() - t);
  }
  return Math.round(median(xs) * 1000) / 1000;
}

const tools = clientTools((JSON.parse(readFileSync(process.argv[2]!, "utf8")) as { tools: Parameters<typeof clientTools>[0] }).tools);
/** The tool-set cache's view of one kept `tools` text (chat/tool-set-cache.ts knownTools); `listed`: it offers the text to find. */
const known = (raw: string, parsed: unknown, listed: boolean) => ({
  key: "tools",
  value: (r: string) => (r === raw ? parsed : undefined),
  texts: () => (listed ? [raw] : []),
});
const out: Record<string, Record<string, number>> = {};
for (const [protocol, parse] of [
  ["chat", parseChatBody],
  ["responses", parseResponsesBody],
  ["messages", parseMessagesBody],
] as const) {
  const text = requestBody(tools, protocol, "tools", "json", 1);
  const value = JSON.parse(text) as { tools: unknown };
  const raw = memberText(text, "tools")!;
  out[protocol] = {
    parse: await time(200, () => JSON.parse(text)),
    check: await time(200, () => parse(JSON.parse(text))),
    stringifyTools: await time(200, () => JSON.stringify(value.tools)),
    rawMember: await time(200, () => memberText(text, "tools")),
    knownFound: await time(200, () => parseKnown(text, known(raw, value.tools, true))),
    knownScanned: await time(200, () => parseKnown(text, known(raw, value.tools, false))),
  };
  out[protocol]!.check = Math.round((out[protocol]!.check! - out[protocol]!.parse!) * 1000) / 1000; // the check alone
}
const up = await startInstantUpstream();
const body = { model: "gpt-4o", messages: [{ role: "user", content: "hello" }], stream: true, stream_options: { include_usage: true } };
const cfg = { baseURL: `${up.url}/v1`, apiKey: "bench", timeout: 5000, maxRetries: 2 };
const drain = async (s: AsyncIterable<unknown>) => {
  for await (const _ of s);
};
const kept = new OpenAI(cfg);
out.upstream = {
  sdkNewClient: await time(200, async () =>
    drain(await new OpenAI(cfg).chat.completions.create(body as OpenAI.ChatCompletionCreateParamsStreaming)),
  ),
  sdkKeptClient: await time(200, async () => drain(await kept.chat.completions.create(body as OpenAI.ChatCompletionCreateParamsStreaming))),
  worker: await time(200, () =>
    callUpstream(
      { baseURL: cfg.baseURL, apiKey: "bench", timeoutMs: 5000, maxRetries: 2 },
      { model: "gpt-4o" },
      { messages: [{ role: "user", content: "hello" }], tools: [] },
      { signal: new AbortController().signal },
    ),
  ),
  plainFetch: await time(200, async () => {
    const r = await fetch(`${cfg.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer bench" },
      body: JSON.stringify(body),
    });
    for (const line of (await r.text()).split("\n")) if (line.startsWith("data: {")) JSON.parse(line.slice(6));
  }),
};
await up.stop();
console.log(JSON.stringify(out));
