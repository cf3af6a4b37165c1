// A turn as Anthropic's Messages event stream, the sequence the Anthropic SDK's stream helper and
// Claude Code parse: message_start when the stream opens (and a ping); a text block's
// content_block_start and text_delta events as text arrives, and each thinking block of the
// Anthropic upstream as it arrives (content_block_start, thinking_delta, signature_delta,
// content_block_stop), hidden rounds' included, in the order contentBlocks gives them; at the
// end, the open text block's content_block_stop, the search blocks and each tool_use block (its input as
// one input_json_delta), message_delta with the stop reason and usage, and message_stop. A failure
// after the stream opened is an `error` event in Anthropic's error shape.

import type { AgentResult } from "../core/agent.ts";
import type { ToolsearchError } from "../core/errors.ts";
import type { StreamWriter } from "../chat/stream.ts";
import { anthropicError } from "./errors.ts";
import type { ThinkingEvent } from "./anthropic-stream.ts";
import type { Block, MessageObject } from "./respond.ts";

/** Where the turn's model calls send thinking events; the event writer sets `on` when it starts. */
export interface ThinkingRelay {
  on?: (e: ThinkingEvent) => void;
}

export interface EventSource {
  /** the message as it stands before any content */
  started(): MessageObject;
  finish(result: AgentResult): Promise<MessageObject> | MessageObject;
}

export function messageEvents(write: (s: string) => void, source: EventSource, begin: () => void, relay: ThinkingRelay): StreamWriter {
  const send = (type: string, fields: Record<string, unknown>) => write(`event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`);
  let index = 0;
  let textOpen = false;
  let sawText = false;
  const closeText = () => {
    if (textOpen) send("content_block_stop", { index: index++ });
    textOpen = false;
  };
  relay.on = (e) => {
    begin();
    if (e.kind === "start") {
      closeText();
      send("content_block_start", { index, content_block: e.block });
    } else if (e.kind === "delta") send("content_block_delta", { index, delta: e.delta });
    else send("content_block_stop", { index: index++ });
  };
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
      sawText = true;
      if (!textOpen) {
        textOpen = true;
        send("content_block_start", { index, content_block: { type: "text", text: "" } });
      }
      send("content_block_delta", { index, delta: { type: "text_delta", text: delta } });
    },
    done: async (result) => {
      const message = await source.finish(result);
      for (const b of message.content) {
        // thinking went out as it came; so did text, unless the stream never saw any
        if (b.type === "thinking" || b.type === "redacted_thinking" || (b.type === "text" && sawText)) continue;
        closeText();
        if (b.type === "text") {
          send("content_block_start", { index, content_block: { type: "text", text: "" } });
          send("content_block_delta", { index, delta: { type: "text_delta", text: b.text } });
          send("content_block_stop", { index: index++ });
        } else block(b);
      }
      closeText();
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
