// The floor's Responses path (floor/worker.ts; bench only): what any Worker that serves OpenAI's
// Responses API over a Chat Completions upstream must do, and no more. The input's messages become
// chat messages (instructions first), function tools chat tools; the chat answer becomes one
// Responses object that echoes the request's tools, as OpenAI's does: once in JSON, and in the
// created, in_progress and completed events of a stream (its text deltas, read from the
// upstream's whole stream: with the bench's instant upstream, the same as relaying them one by one).
interface Item {
  role?: string;
  content?: unknown;
}
type Json = Record<string, any>; // the upstream's chunks, read loosely

export interface ResponsesBody {
  model?: string;
  instructions?: string;
  input?: string | Item[];
  tools?: Array<{ type?: string; name?: string; description?: string; parameters?: unknown }>;
  stream?: boolean;
  [k: string]: unknown;
}

/** The Chat Completions body for a Responses request (its tools already replaced by the caller). */
export function chatBody(body: ResponsesBody, tools: unknown[]): Record<string, unknown> {
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : (body.input ?? []);
  const messages = [...(body.instructions ? [{ role: "system", content: body.instructions }] : []), ...input];
  const chat = tools.map((t) => {
    const { type: _t, ...fn } = t as Json;
    return { type: "function", function: fn };
  });
  return { model: body.model, messages, tools: chat, ...(body.stream ? { stream: true } : {}) };
}

function response(body: ResponsesBody, id: string, status: string, text: string | null, usage: Json | null) {
  return {
    id: `resp_${id}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: body.model,
    instructions: body.instructions ?? null,
    output:
      text === null
        ? []
        : [
            {
              type: "message",
              id: `msg_${id}`,
              status: "completed",
              role: "assistant",
              content: [{ type: "output_text", text, annotations: [] }],
            },
          ],
    tools: body.tools ?? [],
    usage: usage && { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens, total_tokens: usage.total_tokens },
  };
}

/** The upstream's chat answer as a Responses answer, JSON or an event stream. */
export async function responsesAnswer(body: ResponsesBody, upstream: Response): Promise<Response> {
  const id = crypto.randomUUID().replaceAll("-", "");
  if (!body.stream) {
    const chat = (await upstream.json()) as Json;
    return Response.json(response(body, id, "completed", chat.choices?.[0]?.message?.content ?? "", chat.usage ?? null));
  }
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const enc = new TextEncoder();
  const send = (type: string, o: Json) => writer.write(enc.encode(`event: ${type}\ndata: ${JSON.stringify({ type, ...o })}\n\n`));
  void (async () => {
    await send("response.created", { response: response(body, id, "in_progress", null, null) });
    await send("response.in_progress", { response: response(body, id, "in_progress", null, null) });
    const item = { type: "message", id: `msg_${id}`, status: "in_progress", role: "assistant", content: [] };
    await send("response.output_item.added", { output_index: 0, item });
    await send("response.content_part.added", {
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "" },
    });
    let text = "";
    let usage: Json | null = null;
    for (const line of (await upstream.text()).split("\n")) {
      if (!line.startsWith("data: {")) continue;
      const chunk = JSON.parse(line.slice(6)) as Json;
      usage = chunk.usage ?? usage;
      const delta = chunk.choices?.[0]?.delta?.content;
      if (!delta) continue;
      text += delta;
      await send("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta });
    }
    await send("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text });
    const part = { type: "output_text", text, annotations: [] };
    await send("response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part });
    await send("response.output_item.done", { output_index: 0, item: { ...item, status: "completed", content: [part] } });
    await send("response.completed", { response: response(body, id, "completed", text, usage) });
    await writer.close();
  })();
  return new Response(readable, { headers: { "content-type": "text/event-stream" } });
}
