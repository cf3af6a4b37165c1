// The model upstreams' event-stream reader (worker/chat/sse.ts), which replaced the openai SDK's
// (issue 38): events must come out the same however the bytes are cut into chunks, a stream
// past its byte limit must stop there and be cancelled, and a reader that stops early cancels it.
import { describe, expect, it } from "vitest";
import { sseEvents, type ServerSentEvent } from "../../worker/chat/sse.ts";

const enc = new TextEncoder();
const tooLong = () => new Error("too long");

/** A body that gives `chunks` one by one and records whether it was cancelled. */
function body(chunks: Uint8Array[]) {
  const seen = { cancelled: false, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks[seen.pulled++];
      if (next) c.enqueue(next);
      else c.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

async function all(chunks: Uint8Array[], max = Infinity): Promise<ServerSentEvent[]> {
  const out: ServerSentEvent[] = [];
  for await (const e of sseEvents(body(chunks).stream, max, tooLong)) out.push(e);
  return out;
}

/** `text` cut at every `step` bytes (so CRLF pairs and UTF-8 characters fall across chunks). */
const cut = (text: string, step: number) => {
  const bytes = enc.encode(text);
  const parts: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += step) parts.push(bytes.slice(i, i + step));
  return parts;
};

const STREAM =
  'data: {"id":"a","x":"h\u00e9llo \u6f22\u5b57"}\n\n' +
  "event: error\r\ndata: first\r\ndata:second\r\n\r\n" +
  ": a comment\rdata: cr only\r\r" +
  "data: [DONE]";
const EVENTS: ServerSentEvent[] = [
  { event: "", data: '{"id":"a","x":"h\u00e9llo \u6f22\u5b57"}' },
  { event: "error", data: "first\nsecond" },
  { event: "", data: "cr only" },
  { event: "", data: "[DONE]" },
];

describe("sseEvents", () => {
  it("gives the same events for LF, CRLF and CR line ends however the bytes are chunked", async () => {
    expect(await all([enc.encode(STREAM)])).toEqual(EVENTS);
    for (const step of [1, 2, 3, 5, 7, 64]) expect(await all(cut(STREAM, step)), `step ${step}`).toEqual(EVENTS);
  });

  it("stops past its byte limit and cancels the body, even inside one endless line", async () => {
    const { stream, seen } = body(Array.from({ length: 100 }, () => enc.encode("x".repeat(1000))));
    const read = (async () => {
      for await (const _ of sseEvents(stream, 10_000, tooLong));
    })();
    await expect(read).rejects.toThrow("too long");
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(15);
  });

  it("cancels the body when the reader stops early", async () => {
    const { stream, seen } = body([enc.encode("data: 1\n\ndata: 2\n\n"), enc.encode("data: 3\n\n")]);
    for await (const e of sseEvents(stream, Infinity, tooLong)) if (e.data === "1") break;
    expect(seen.cancelled).toBe(true);
  });
});
