// One pass over the text of a JSON value JSON.parse has accepted: how deeply it nests, and where
// each top-level member of an object lies in it. The Worker reads every JSON body this way once:
// the depth check (core/json-depth.ts: why) needs no walk of the parsed value, and the tool-set
// cache (chat/tool-set-cache.ts) is keyed by the request's `tools` as the client sent them, which
// the same bytes always parse to, instead of a JSON.stringify of 280 KB of parsed tools. Strings
// are skipped a character at a time while short and with indexOf past 16 characters (tool
// descriptions are long; keys are short). It follows JSON.parse where the two could differ: the
// last of duplicate keys wins, and a key written with escapes (`"tool\u0073"`) is the key it
// decodes to. Pure; assumes valid JSON.

export interface JsonScan {
  /** the deepest nesting of arrays and objects (a scalar: 0) */
  depth: number;
  /** each top-level member's value as [start, end) in the text (empty unless the value is an object) */
  members: Map<string, [number, number]>;
}

/** The index just past the string whose opening quote is at `at` (the text's length when it breaks off). */
function stringEnd(text: string, at: number): number {
  const n = text.length;
  let i = at + 1;
  for (const short = Math.min(n, i + 16); i < short; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return n;
    let k = q - 1;
    while (k >= at && text.charCodeAt(k) === 92) k--;
    // an even run of backslashes before the quote escapes only themselves
    if ((q - 1 - k) % 2 === 0) return q + 1;
    i = q + 1;
  }
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

export function scanJson(text: string): JsonScan {
  const members = new Map<string, [number, number]>();
  let depth = 0;
  let max = 0;
  let key: string | undefined; // the top-level key whose value is being read
  let start = -1;
  let expectKey = false;
  let object = false; // the value is an object (an array's items are not members)
  const close = (end: number) => {
    if (key === undefined) return;
    let e = end;
    while (e > start && isSpace(text.charCodeAt(e - 1))) e--;
    members.set(key, [start, e]);
    key = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        const raw = text.slice(i + 1, end - 1);
        key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
        expectKey = false;
      }
      i = end - 1;
    } else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
      if (depth === 1) expectKey = object = c === 123;
    } else if (c === 125 || c === 93) {
      if (depth-- === 1) close(i);
    } else if (depth === 1 && object) {
      if (c === 58) start = i + 1;
      else if (c === 44) (close(i), (expectKey = true));
      else if (start >= 0 && key !== undefined && start === i && isSpace(c)) start = i + 1;
    }
  }
  return { depth: max, members };
}

/** The text of top-level member `key`'s value; undefined when the value is not an object or has no such member. */
export function memberText(text: string, key: string, scan: JsonScan = scanJson(text)): string | undefined {
  const at = scan.members.get(key);
  return at && text.slice(at[0], at[1]);
}
