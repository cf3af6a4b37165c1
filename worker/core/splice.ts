// Append-only upstream prompts. The client never sees the toolSearch rounds the Worker ran for it,
// nor (in proxy mode) the callTool calls it rewrote, so its next request lacks them. A splice
// remembers, for one turn: where in the client's history the turn's answer sits (`at`, the hash
// of every client message before it), the hidden messages that came before that answer, and the
// answer as upstream really gave it. Re-inserting them makes each upstream request begin with the
// previous one plus its response, so prefix caches keep hitting. A history that no longer matches
// (edited, truncated, answer changed) skips the splice: a correct prompt, only an uncached one.

import { canonicalJson, sha256Hex } from "./canonical.ts";
import type { ChatMessage } from "./chat.ts";

export interface Splice {
  /** index in the client's messages where the answer the client received sits */
  at: number;
  /** prefixChain()[at] of the client's messages */
  prefix: string;
  /** what upstream saw between the client's messages and the answer */
  hidden: ChatMessage[];
  /** the answer: its signature as the client received it, and as upstream gave it */
  reply: { sig: string; upstream: ChatMessage };
}

/**
 * What identifies a message regardless of how a client library re-serializes it (key order,
 * `null` vs absent fields, extra fields such as `refusal` or `annotations`).
 */
export function messageSig(m: ChatMessage): string {
  return canonicalJson({
    role: m.role,
    content: m.content ?? "",
    tool_call_id: m.tool_call_id,
    tool_calls: m.tool_calls?.map((c) => ({ id: c.id, name: c.function?.name, arguments: c.function?.arguments })),
  });
}

/** chain[i] identifies messages[0..i); chain[0] is the empty history. */
export async function prefixChain(messages: readonly ChatMessage[]): Promise<string[]> {
  const chain = [""];
  for (const m of messages) chain.push(await sha256Hex(`${chain[chain.length - 1]}\n${messageSig(m)}`));
  return chain;
}

/** The client's messages with every matching splice put back. */
export function applySplices(
  messages: readonly ChatMessage[],
  chain: readonly string[],
  splices: readonly Splice[],
): { messages: ChatMessage[]; applied: number } {
  const byAt = new Map<number, Splice>();
  for (const s of splices) if (s.at < messages.length && s.prefix === chain[s.at]) byAt.set(s.at, s);
  const out: ChatMessage[] = [];
  let applied = 0;
  messages.forEach((m, i) => {
    const s = byAt.get(i);
    if (s && s.reply.sig === messageSig(m)) {
      out.push(...s.hidden, s.reply.upstream);
      applied++;
    } else out.push(m);
  });
  return { messages: out, applied };
}
