// A turn as Anthropic's Messages event stream, the sequence the Anthropic SDK's stream helper and
// Claude Code parse: message_start when the stream opens (and a ping); a text block's
// content_block_start and text_delta events as text arrives (hidden rounds' text included); at the
// end, the text block's content_block_stop, the search blocks and each tool_use block (its input as
// one input_json_delta), message_delta with the stop reason and usage, and message_stop. A failure
// after the stream opened is an `error` event in Anthropic's error shape.

import type { AgentResult } from "../core/agent.ts";
import type { ToolsearchError } from "../core/errors.ts";
import type { StreamWriter } from "../chat/stream.ts";
import { anthropicError } from "./errors.ts";
import type { Block, MessageObject } from "./respond.ts";

export interface EventSource {
  /** the message as it stands before any content */
  started(): MessageObject;
  finish(result: AgentResult): Promise<MessageObject> | MessageObject;
}

export function messageEvents(write: (s: string) => void, source: EventSource): StreamWriter {
  const send = (type: string, fields: Record<string, unknown>) => write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
  let index = 0;
  let textOpen = false;
  const block = (b: Block) => {
    if (b.type === "tool_use") {
      send("content_block_start", { index, content_block: { ...b, input: {} } });
      send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
    } else send("content_block_start", { index, content_block: b });
    send("content_block_stop", { index: index++ });
  };
  return {
    open: () => {
      send("message_start", { message: source.started() });
      send("ping", {});
    },
    text: (delta) => {
      if (!textOpen) {
        textOpen = true;
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
      }
      send("content_block_delta", { index, delta: { type: "text_delta", text: delta } });
    },
    done: async (result) => {
      const message = await source.finish(result);
      for (const b of message.content) {
        if (b.type !== "text") {
          if (textOpen) send("content_block_stop", { index: index++ });
          textOpen = false;
          block(b);
        } else if (textOpen) {
          send("content_block_stop", { index: index++ });
          textOpen = false;
        } else {
          // text the stream never saw as deltas (none here, but kept whole)
          send("content_block_start", { index, content_block: { type: "text", text: "" } });
          send("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
          send("content_block_stop", { index: index++ });
        }
      }
      if (textOpen) send("content_block_stop", { index: index++ });
      send("message_delta", {
        delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
        usage: {
          output_tokens: message.usage.output_tokens,
          input_tokens: message.usage.input_tokens,
          cache_read_input_tokens: message.usage.cache_read_input_tokens,
        },
      });
      send("message_stop", {});
    },
    failed: (err: ToolsearchError) => send("error", anthropicError(err)),
  };
}
