// A turn as the Responses event stream, the sequence the openai SDK's stream helper and Codex parse:
// response.created and response.in_progress when the stream opens; the message item's
// output_item.added, content_part.added and output_text.delta events as text arrives (hidden
// rounds' text included); at the end, the text's done events, the hosted tool search's items,
// each function call's output_item.added, function_call_arguments.delta and .done, output_item.done, and
// response.completed (response.incomplete at the token limit) with the whole response. A failure
// after the stream opened is response.failed. Every event carries its sequence_number.

import type { AgentResult } from "../core/agent.ts";
import type { ToolsearchError } from "../core/errors.ts";
import type { StreamWriter } from "../chat/stream.ts";
import { messageItemId } from "./respond.ts";
import type { OutputFunctionCall, OutputItem, ResponseObject } from "./shapes.ts";

export interface EventSource {
  /** the response as it stands before any output */
  started(): ResponseObject;
  /** the finished response (stored, when the request asked for it, before completed is sent) */
  finish(result: AgentResult): Promise<ResponseObject>;
}

/** `stringify`: the events' JSON (respond.ts echoJson, which writes the request's tools once) */
export function responseEvents(
  write: (s: string) => void,
  source: EventSource,
  stringify: (v: unknown) => string = JSON.stringify,
): StreamWriter {
  let seq = 0;
  const send = (type: string, fields: Record<string, unknown>) =>
    write(`event: ${type}\ndata: ${stringify({ type, sequence_number: seq++, ...fields })}\n\n`);
  let started!: ResponseObject;
  let text: { id: string; text: string } | null = null;
  const part = (t: string) => ({ type: "output_text", text: t, annotations: [], logprobs: [] });

  const openText = () => {
    const id = messageItemId(started.id);
    text = { id, text: "" };
    send("response.output_item.added", {
      output_index: 0,
      item: { type: "message", id, status: "in_progress", role: "assistant", content: [] },
    });
    send("response.content_part.added", { item_id: id, output_index: 0, content_index: 0, part: part("") });
  };
  const call = (item: OutputFunctionCall, index: number) => {
    send("response.output_item.added", { output_index: index, item: { ...item, arguments: "", status: "in_progress" } });
    send("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: item.arguments });
    send("response.function_call_arguments.done", { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
    send("response.output_item.done", { output_index: index, item });
  };
  const closeText = (item: OutputItem) => {
    if (item.type !== "message") return;
    const t = item.content[0]!.text;
    if (!text) openText();
    send("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text: t, logprobs: [] });
    send("response.content_part.done", { item_id: item.id, output_index: 0, content_index: 0, part: part(t) });
    send("response.output_item.done", { output_index: 0, item });
  };

  return {
    open: () => {
      started = source.started();
      send("response.created", { response: started });
      send("response.in_progress", { response: started });
    },
    text: (delta) => {
      if (!text) openText();
      text!.text += delta;
      send("response.output_text.delta", { item_id: text!.id, output_index: 0, content_index: 0, delta, logprobs: [] });
    },
    done: async (result) => {
      const response = await source.finish(result);
      response.output.forEach((item, index) => {
        if (item.type === "message") closeText(item);
        else if (item.type === "function_call") call(item, index);
        else {
          send("response.output_item.added", { output_index: index, item });
          send("response.output_item.done", { output_index: index, item });
        }
      });
      send(response.status === "incomplete" ? "response.incomplete" : "response.completed", { response });
    },
    failed: (err: ToolsearchError) =>
      send("response.failed", { response: { ...started, status: "failed", error: { code: err.code, message: err.message } } }),
  };
}
