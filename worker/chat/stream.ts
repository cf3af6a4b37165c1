// Server-sent events for a chat turn, whatever the event format (chat completion chunks, Responses
// events): the writer says what to send when the stream opens, for each text delta, at the end and
// on failure; this file owns the plumbing. Headers go out with the first text delta, before the
// first call the Worker runs (edge execution), when the writer opens it for events of its own (the
// Messages API's thinking blocks), or when the loop ends, so a failure before any byte
// is still a plain error with its status (thrown to the one handler); after that the status is
// sent and the writer reports the failure in the stream. A cancelled body (the client went away)
// aborts the turn: its model call, and its edge call through the turn's cancel (turn.ts). workerd
// notices a client gone only when it writes to the socket, so an open stream carries an SSE comment
// every KEEPALIVE_MS while a round runs quietly (a tool at the edge, a slow model): clients ignore
// comments, and the second write after the client left fails (docs/faults.md).

import type { AgentResult } from "../core/agent.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { ChatTurn } from "./turn.ts";

/** how often an open stream that has nothing to say sends a comment */
export const KEEPALIVE_MS = 5_000;

export interface StreamWriter {
  /** the first bytes: before the first text delta, or before the end when there is no text */
  open(): void;
  text(delta: string): void;
  /** the rest, after the loop ended (may store what it answers first) */
  done(result: AgentResult): void | Promise<void>;
  /** a failure after the stream opened */
  failed(err: ToolsearchError): void;
}

/** `begin` opens the stream (once) for a writer that has something to send before any text. */
export async function streamTurn(turn: ChatTurn, make: (write: (s: string) => void, begin: () => void) => StreamWriter): Promise<Response> {
  const { abort, progress } = turn;
  let out!: ReadableStreamDefaultController<Uint8Array>;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  const quiet = () => keepalive !== undefined && clearInterval(keepalive);
  const stop = () => (quiet(), abort.abort());
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (out = c), cancel: stop });
  const enc = new TextEncoder();
  const write = (s: string) => {
    try {
      out.enqueue(enc.encode(s));
    } catch {
      stop();
    }
  };
  const close = () => {
    quiet();
    try {
      out.close();
    } catch {
      /* already cancelled */
    }
  };
  const writer = make(write, () => begin());
  let opened = false;
  let open!: () => void;
  const opening = new Promise<void>((r) => (open = r));
  const begin = () => {
    if (opened) return;
    opened = true;
    writer.open();
    keepalive = setInterval(() => write(": keepalive\n\n"), KEEPALIVE_MS);
    open();
  };
  const done = turn
    .run((t) => {
      begin();
      writer.text(t);
    }, begin)
    .then(async (result) => {
      begin();
      await writer.done(result);
    })
    .then(
      () => close(),
      (e: unknown) => {
        if (!opened) throw e;
        writer.failed(e instanceof ToolsearchError ? e : new ToolsearchError("internal", "internal error"));
        close();
      },
    );
  await Promise.race([opening, done]);
  return new Response(readable, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...turn.headers,
      "x-toolsearch-hops": String(progress.hops),
    },
  });
}
