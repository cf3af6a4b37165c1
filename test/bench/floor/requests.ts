// The requests of `npm run bench -- floor` (test/bench/floor.ts) and how their answers are read.
// Two shapes: "catalog" (a system message and user, assistant, user: no client tools, the deferred
// tools come from the project's catalog) and "tools" (the same with the pinned catalog's 191 tools
// as client tools, in each protocol's format: a 282 KB chat body). The first user message never
// changes, so each path keeps one session; the last one carries the round number.
export type Protocol = "chat" | "messages" | "responses";
export type Shape = "catalog" | "tools";
export type Mode = "json" | "sse";

interface CatalogTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

const SYSTEM = "You are a helpful engineering assistant. Use the tools you have when they help.";
const FIRST = "Find the open pull requests in the acme/widgets repository and summarize what each one changes.";
const REPLY = "Sure. Should I include drafts, or only pull requests that are ready for review?";
const last = (round: number) => `Only the ones ready for review, please (request ${round}).`;

export function clientTools(tools: readonly CatalogTool[]): Record<Protocol, unknown[]> {
  return {
    chat: tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } })),
    messages: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    responses: tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.inputSchema })),
  };
}

export function requestBody(tools: Record<Protocol, unknown[]>, protocol: Protocol, shape: Shape, mode: Mode, round: number): string {
  const extra = { ...(shape === "tools" ? { tools: tools[protocol] } : {}), ...(mode === "sse" ? { stream: true } : {}) };
  const turns = [
    { role: "user", content: FIRST },
    { role: "assistant", content: REPLY },
    { role: "user", content: last(round) },
  ];
  if (protocol === "chat") {
    const usage = mode === "sse" ? { stream_options: { include_usage: true } } : {};
    return JSON.stringify({ model: "gpt-4o", messages: [{ role: "system", content: SYSTEM }, ...turns], ...extra, ...usage });
  }
  if (protocol === "messages")
    return JSON.stringify({ model: "claude-sonnet-4-5", max_tokens: 1024, system: SYSTEM, messages: turns, ...extra });
  return JSON.stringify({ model: "gpt-4o", instructions: SYSTEM, input: turns, ...extra });
}

type Json = Record<string, any>; // answers of three protocols, read loosely
const events = (text: string): Json[] =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter((d) => d && d !== "[DONE]")
    .map((d) => JSON.parse(d) as Json);

/** The answer's text, taken out of the JSON or the SSE of its protocol. */
export function answerText(protocol: Protocol, mode: Mode, text: string): string {
  if (mode === "json") {
    const j = JSON.parse(text) as Json;
    if (protocol === "chat") return j.choices?.[0]?.message?.content ?? "";
    const blocks: Json[] = protocol === "messages" ? (j.content ?? []) : (j.output ?? []).flatMap((o: Json) => o.content ?? []);
    return blocks
      .filter((b) => b.type === (protocol === "messages" ? "text" : "output_text"))
      .map((b) => b.text)
      .join("");
  }
  const es = events(text);
  if (protocol === "chat") return es.map((e) => e.choices?.[0]?.delta?.content ?? "").join("");
  if (protocol === "messages")
    return es
      .filter((e) => e.type === "content_block_delta" && e.delta?.type === "text_delta")
      .map((e) => e.delta.text)
      .join("");
  return es
    .filter((e) => e.type === "response.output_text.delta")
    .map((e) => e.delta)
    .join("");
}
