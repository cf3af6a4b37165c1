// Stored responses of the Responses endpoint (store: true, the default), in the session object's
// SQLite: each row holds the response as answered and the chat messages it added to the
// conversation (its input, without the instructions, and its output), linked to the response it
// continued. previous_response_id walks that chain back, so a client sends only its new input and
// the upstream still gets the whole conversation, byte for byte as a client replaying it would.
// Bounded per session: the oldest rows go first.

import type { ChatMessage } from "../core/chat.ts";
import type { ResponseObject } from "../responses/shapes.ts";

export const RESPONSES_SCHEMA = `
  CREATE TABLE IF NOT EXISTS responses (id TEXT PRIMARY KEY, previous TEXT, data TEXT NOT NULL, seq INTEGER NOT NULL);`;

/** responses a session keeps (and the longest chain previous_response_id follows) */
export const MAX_RESPONSES = 1000;

export interface StoredResponse {
  response: ResponseObject;
  /** the chat messages this response added: its input (no instructions), then its output */
  messages: ChatMessage[];
}

export interface ResponseThread {
  response: ResponseObject;
  /** the conversation up to and including this response, oldest first */
  messages: ChatMessage[];
}

type Row = { id: string; previous: string | null; data: string };

export class ResponseStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  put(stored: StoredResponse): void {
    const seq = (this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM responses").one().n ?? 0) + 1;
    this.sql.exec(
      "INSERT OR REPLACE INTO responses (id, previous, data, seq) VALUES (?, ?, ?, ?)",
      stored.response.id,
      stored.response.previous_response_id,
      JSON.stringify(stored),
      seq,
    );
    this.sql.exec("DELETE FROM responses WHERE seq <= ?", seq - MAX_RESPONSES);
  }

  private row(id: string): Row | undefined {
    return this.sql.exec<Row>("SELECT id, previous, data FROM responses WHERE id = ?", id).toArray()[0];
  }

  get(id: string): ResponseObject | null {
    const r = this.row(id);
    return r ? (JSON.parse(r.data) as StoredResponse).response : null;
  }

  /** The response and the conversation that led to it; null when it is not stored (or a link is gone). */
  thread(id: string): ResponseThread | null {
    const chain: StoredResponse[] = [];
    for (let next: string | null = id; next !== null && chain.length < MAX_RESPONSES;) {
      const r = this.row(next);
      if (!r) return null;
      chain.push(JSON.parse(r.data) as StoredResponse);
      next = r.previous;
    }
    return { response: chain[0]!.response, messages: chain.reverse().flatMap((s) => s.messages) };
  }

  delete(id: string): boolean {
    return this.sql.exec("DELETE FROM responses WHERE id = ?", id).rowsWritten > 0;
  }

  clear(): void {
    this.sql.exec("DELETE FROM responses");
  }
}
