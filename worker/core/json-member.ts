// The raw text of one top-level member of a JSON object, found by scanning the text the object
// was parsed from: the tool-set cache (chat/tool-set-cache.ts) is keyed by the request's `tools` as
// the client sent them, which the same bytes always parse to, instead of a JSON.stringify of
// 280 KB of parsed tools per request. The scan jumps from one structural character to the next
// and over strings with indexOf, so it touches little of a body that is mostly string content.
// It follows JSON.parse where the two could differ: the last of duplicate keys wins, and a key
// written with escapes (`"tool\u0073"`) is the key it decodes to. Pure.

/** The index just past the string whose opening quote is at `at`, or -1 when the text breaks off. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92)
      i++; // a backslash: the next character is escaped
    else if (c === 34) return i + 1;
  }
  return -1;
}

/** The index just past the value that starts at `at`, or -1 when the text breaks off. */
function valueEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // a string: its end, in the same loop (a call per string costs more than it saves)
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
      if (depth === 0) return i + 1;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth <= 0) return depth < 0 ? i : i + 1;
    } else if (c === 44 && depth === 0) return i;
  }
  return depth === 0 ? text.length : -1;
}

const skipSpace = (text: string, at: number) => {
  let i = at;
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  return i;
};

/**
 * The text of member `key`'s value in `text`, a JSON object JSON.parse has accepted (the scan
 * assumes valid JSON); undefined when the object has no such member.
 */
export function memberText(text: string, key: string): string | undefined {
  let i = skipSpace(text, 0);
  if (text[i] !== "{") return undefined;
  let found: [number, number] | undefined;
  i = skipSpace(text, i + 1);
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) return undefined;
    const raw = text.slice(i + 1, keyEnd - 1);
    const name = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
    const start = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, start);
    if (end < 0) return undefined;
    if (name === key) found = [start, end];
    i = skipSpace(text, end);
    if (text[i] !== ",") break;
    i = skipSpace(text, i + 1);
  }
  return found && text.slice(found[0], found[1]).trimEnd();
}
