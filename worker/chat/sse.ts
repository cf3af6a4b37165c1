// Server-sent events of a model upstream's answer (Chat Completions chunks, Messages events), read
// straight off the body's reader: bytes counted as they arrive (past `maxBytes` the read stops and
// the body is cancelled: an answer without end costs at most that much, L3), lines split on LF,
// CRLF or CR, `data:` lines of one event joined with LF, an event given at each blank line and at
// the end of the body. A consumer that stops early (a break, a throw) cancels the body, so the
// upstream sees the request go away. One loop, no TransformStream: this is on every agent round.

export interface ServerSentEvent {
  /** the `event:` field, "" when the event had none */
  event: string;
  data: string;
}

export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLong: () => Error,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  // the line that has not ended yet, in pieces: joined once it ends (a line without end is never
  // copied or scanned twice); a CR that ended a chunk may have its LF in the next
  let pending: string[] = [];
  let crEnded = false;
  let event = "";
  let data: string[] = [];
  const line = (text: string): ServerSentEvent | undefined => {
    if (text === "") {
      const out = data.length ? { event, data: data.join("\n") } : undefined;
      event = "";
      data = [];
      return out;
    }
    if (text.startsWith("data:")) data.push(text.slice(text[5] === " " ? 6 : 5));
    else if (text.startsWith("event:")) event = text.slice(text[6] === " " ? 7 : 6);
    return undefined;
  };
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (value) {
        seen += value.byteLength;
        if (seen > maxBytes) throw tooLong();
      }
      const text = decoder.decode(value, { stream: !done });
      let at = crEnded && text[0] === "\n" ? 1 : 0;
      if (text) crEnded = false;
      // the next LF and CR at or after `at` (-1: none in this chunk), each searched again only once passed
      let lf = -2;
      let cr = -2;
      for (;;) {
        if (lf !== -1 && lf < at) lf = text.indexOf("\n", at);
        if (cr !== -1 && cr < at) cr = text.indexOf("\r", at);
        const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
        if (end < 0) break;
        const piece = text.slice(at, end);
        const whole = pending.length ? pending.join("") + piece : piece;
        pending = [];
        if (text[end] === "\r" && end + 1 === text.length) crEnded = true;
        at = end + (text[end] === "\r" && text[end + 1] === "\n" ? 2 : 1);
        const e = line(whole);
        if (e) yield e;
      }
      if (at < text.length) pending.push(text.slice(at));
      if (done) break;
    }
    if (pending.length) line(pending.join(""));
    const last = line("");
    if (last) yield last;
    finished = true;
  } finally {
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
