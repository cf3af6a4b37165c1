// Extended thinking on the Anthropic upstream, pure. The one agent loop works on chat messages, so
// an assistant round's thinking and redacted_thinking blocks ride on its chat message as
// `thinking_blocks`, kept as the upstream sent them (signature and all): in the session's splices
// for the hidden rounds, and from the client's history. Anthropic refuses a tool_use turn sent back
// without the thinking that preceded it, so they go back byte for byte, before the turn's text and
// tool_use blocks. A chat upstream never gets them (translate.ts leaves them out for it).

import { textOf, type ChatMessage, type JsonValue } from "../core/chat.ts";

export const THINKING_FIELD = "thinking_blocks";

export type ThinkingBlock =
  | { type: "thinking"; thinking: string; signature: string; [k: string]: JsonValue }
  | { type: "redacted_thinking"; data: string; [k: string]: JsonValue };

/** The thinking blocks an assistant message carries, in the order the upstream sent them. */
export function thinkingOf(m: ChatMessage): ThinkingBlock[] {
  const blocks = m[THINKING_FIELD];
  return Array.isArray(blocks) ? (blocks as ThinkingBlock[]) : [];
}

/** The message with its thinking blocks (none: the message as it is). */
export function withThinking(m: ChatMessage, blocks: readonly ThinkingBlock[]): ChatMessage {
  return blocks.length ? { ...m, [THINKING_FIELD]: [...blocks] } : m;
}

/**
 * What the client sees of a turn's rounds, hidden ones included, in the order they came: each
 * round's thinking, then its text (text of rounds with no thinking between them is one block).
 * This is the order the stream relays them in.
 */
export function roundBlocks(rounds: readonly ChatMessage[]): Array<ThinkingBlock | { type: "text"; text: string }> {
  const out: Array<ThinkingBlock | { type: "text"; text: string }> = [];
  for (const r of rounds) {
    out.push(...thinkingOf(r));
    const text = textOf(r.content);
    const last = out[out.length - 1];
    if (!text) continue;
    if (last?.type === "text") last.text += text;
    else out.push({ type: "text", text });
  }
  return out;
}
