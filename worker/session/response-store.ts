// Stored responses of the Responses endpoint (store: true, the default), in the session object's
// SQLite: each row holds the response as answered and the chat messages it added to the
// conversation (its input, without the instructions, and its output), linked to the response it
// continued. previous_response_id walks that chain back, so a client sends only its new input and
// the upstream still gets the whole conversation, byte for byte as a client replaying it would.
// The response is kept without its tools' definitions (a client sends its tools with every request
// anyway; 191 MCP tools are about 280 KB, which every row would repeat), and the messages in a
// column of their own, so walking a chain parses only what it needs. Bounded per session
// (QUOTAS.responsesPerSession): the oldest rows go first; a replayed chain is bounded in bytes (MAX_THREAD_BYTES).

import type { ChatMessage } from "../core/chat.ts";
import type { ResponseObject } from "../responses/shapes.ts";

export const RESPONSES_SCHEMA = `
  CREATE TABLE IF NOT EXISTS responses (
    id TEXT PRIMARY KEY, previous TEXT, response TEXT NOT NULL, messages TEXT NOT NULL, seq INTEGER NOT NULL);`;

export interface StoredResponse {
  response: ResponseObject;
  /** the chat messages this response added: its input (no instructions), then its output */
  messages: ChatMessage[];
}

/**
 * The longest conversation previous_response_id replays, in bytes of stored messages: the thread
 * crosses the object's RPC (32 MiB at most) and goes upstream whole, so past this the request is
 * refused clearly (a 413 naming the bound) instead of failing at the RPC limit (issue 30 L1).
 */
export const MAX_THREAD_BYTES = 4 * 1024 * 1024;

/** the conversation up to and including this response, oldest first; or how long it is when over the bound */
export type ResponseThread = { messages: ChatMessage[] } | { tooLong: number };

type Link = { previous: string | null; messages: string };

export class ResponseStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** Store a response; past `keep` (QUOTAS.responsesPerSession, 0: no limit) the oldest go. */
  put(stored: StoredResponse, keep: number): void {
    const seq = (this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM responses").one().n ?? 0) + 1;
    const { response, messages } = stored;
    this.sql.exec(
      "INSERT OR REPLACE INTO responses (id, previous, response, messages, seq) VALUES (?, ?, ?, ?, ?)",
      response.id,
      response.previous_response_id,
      JSON.stringify({ ...response, tools: [] }),
      JSON.stringify(messages),
      seq,
    );
    if (keep > 0) this.sql.exec("DELETE FROM responses WHERE seq <= ?", seq - keep);
  }

  /** The stored response (its tools not kept: `tools` is empty), or null. */
  get(id: string): ResponseObject | null {
    const r = this.sql.exec<{ response: string }>("SELECT response FROM responses WHERE id = ?", id).toArray()[0];
    return r ? (JSON.parse(r.response) as ResponseObject) : null;
  }

  /** The conversation up to and including response `id`; null when it is not stored (or a link is gone). */
  thread(id: string): ResponseThread | null {
    const chain: string[] = [];
    let bytes = 0;
    const seen = new Set<string>();
    for (let next: string | null = id; next !== null && !seen.has(next);) {
      seen.add(next);
      const r: Link | undefined = this.sql.exec<Link>("SELECT previous, messages FROM responses WHERE id = ?", next).toArray()[0];
      if (!r) return null;
      bytes += r.messages.length;
      // parsed only when it is sent: an over-long chain costs no more than reading past the bound
      if (bytes > MAX_THREAD_BYTES) return { tooLong: bytes };
      chain.push(r.messages);
      next = r.previous;
    }
    return { messages: chain.reverse().flatMap((m) => JSON.parse(m) as ChatMessage[]) };
  }

  delete(id: string): boolean {
    return this.sql.exec("DELETE FROM responses WHERE id = ?", id).rowsWritten > 0;
  }

  clear(): void {
    this.sql.exec("DELETE FROM responses");
  }
}
