// An instant model upstream on loopback for `npm run bench -- floor` (test/bench/floor.ts): it
// answers at once with ANSWER and a usage of about one token per 4 bytes, never a tool call.
//   POST /v1/chat/completions   JSON, or SSE chunks with `stream: true` (a usage chunk with
//                               stream_options.include_usage)
//   POST /v1/messages           Anthropic Messages: JSON, or its event stream with `stream: true`
// Every body is read whole and JSON.parse'd, as a real server would; `tools` counts the tools of
// the last request (what the proxy sent on).
import { createServer, type ServerResponse } from "node:http";

export const ANSWER = "The fake upstream says hello.";
const WORDS = ANSWER.match(/\S+\s*/g)!;

export interface InstantUpstream {
  url: string;
  /** tools in the last request's body */
  tools(): number;
  stop(): Promise<void>;
}

type Body = { model?: string; stream?: boolean; stream_options?: { include_usage?: boolean }; tools?: unknown[] };
let seq = 0;

function chat(res: ServerResponse, body: Body, tokens: number): void {
  const id = `chatcmpl-${(++seq).toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const model = String(body.model ?? "fake");
  const usage = { prompt_tokens: tokens, completion_tokens: 7, total_tokens: tokens + 7, prompt_tokens_details: { cached_tokens: 0 } };
  if (!body.stream) {
    const message = { role: "assistant", content: ANSWER, refusal: null };
    const choices = [{ index: 0, message, finish_reason: "stop", logprobs: null }];
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices, usage }));
  }
  const chunk = (delta: object, finish: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  let out = `data: ${JSON.stringify(chunk({ role: "assistant", content: "" }))}\n\n`;
  for (const w of WORDS) out += `data: ${JSON.stringify(chunk({ content: w }))}\n\n`;
  out += `data: ${JSON.stringify(chunk({}, "stop"))}\n\n`;
  if (body.stream_options?.include_usage) out += `data: ${JSON.stringify({ ...chunk({}), choices: [], usage })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.end(`${out}data: [DONE]\n\n`);
}

function messages(res: ServerResponse, body: Body, tokens: number): void {
  const usage = { input_tokens: tokens, output_tokens: 7, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const message = {
    id: `msg_${(++seq).toString(36)}`,
    type: "message",
    role: "assistant",
    model: String(body.model ?? "fake"),
    content: [{ type: "text", text: ANSWER }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage,
  };
  if (!body.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    return void res.end(JSON.stringify(message));
  }
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  let out = ev("message_start", { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
  out += ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
  for (const w of WORDS) out += ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: w } });
  out += ev("content_block_stop", { index: 0 });
  out += ev("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } });
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.end(out + ev("message_stop", {}));
}

export async function startInstantUpstream(): Promise<InstantUpstream> {
  let lastTools = 0;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const route = path === "/v1/chat/completions" ? chat : path === "/v1/messages" ? messages : null;
    if (req.method !== "POST" || !route) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: Body;
      try {
        body = JSON.parse(raw.toString("utf8")) as Body;
      } catch {
        return void res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"bad JSON"}}');
      }
      lastTools = Array.isArray(body.tools) ? body.tools.length : 0;
      route(res, body, Math.max(1, Math.round(raw.length / 4)));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    tools: () => lastTools,
    stop: () => new Promise<void>((r) => server.close(() => r())),
  };
}
