// A JSON body parsed without a top-level member whose text parsed before (issue 38: an agent sends
// the same 290 KB of tools on every request). The body is parsed with that member's value written
// as `[]`, and the kept value is put in its place. The member is found two ways:
// - where `"key":` is followed by a known text (found natively, compared natively), only the rest
//   of the body is scanned (core/json-member.ts) and parsed; the scan must put that `[]` exactly
//   at the top-level member, or the find was inside something else and counts for nothing;
// - else one scan of the whole text says where the member lies, and its text is looked up.
// What comes back is what JSON.parse of the whole text gives. A known text is an array that sat
// at the top level of a body which passed the depth check, so it nests the same here and the rest's
// depth is the body's. On any doubt nothing comes back, and the caller parses the whole text, so a
// bad body is refused in the same words. Pure.

import { scanJson, type JsonScan } from "./json-member.ts";

/** A top-level member whose raw text may already be known parsed (chat/tool-set-cache.ts knownTools). */
export interface KnownMember {
  key: string;
  /** the value `raw` parsed to before, or undefined */
  value(raw: string): unknown;
  /** the texts value() knows: each parsed to an array, the top-level member of a body that passed the depth check */
  texts(): Iterable<string>;
}

/** At most this many `"key"` finds are tried: a body can hold the key's text in any number of strings. */
const MAX_FINDS = 8;

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** The parsed body and its scan, either of them missing when this could not vouch for it. */
export function parseKnown(text: string, known: KnownMember): { value?: Record<string, unknown>; scan?: JsonScan } {
  const found = atKnownText(text, known);
  if (found) return found;
  const scan = scanned(text);
  const at = scan?.members.get(known.key);
  const value = at && known.value(text.slice(at[0], at[1]));
  if (value === undefined) return { scan };
  return { scan, value: parsedWith(`${text.slice(0, at![0])}[]${text.slice(at![1])}`, known.key, value) };
}

/** The body where a known text follows `"key":`, the rest scanned and parsed; undefined when none does. */
function atKnownText(text: string, known: KnownMember): { value: Record<string, unknown>; scan: JsonScan } | undefined {
  const quoted = `"${known.key}"`;
  for (let find = text.indexOf(quoted), n = 0; find >= 0 && n < MAX_FINDS; find = text.indexOf(quoted, find + 1), n++) {
    let v = find + quoted.length;
    while (isSpace(text.charCodeAt(v))) v++;
    if (text.charCodeAt(v) !== 58) continue;
    do v++;
    while (isSpace(text.charCodeAt(v)));
    let raw: string | undefined;
    for (const t of known.texts()) {
      if (!text.startsWith(t, v)) continue;
      raw = t;
      break;
    }
    if (raw === undefined) continue;
    const rest = `${text.slice(0, v)}[]${text.slice(v + raw.length)}`;
    const scan = scanned(rest);
    const at = scan?.members.get(known.key);
    if (!scan || !at || at[0] !== v || at[1] !== v + 2) continue;
    const value = parsedWith(rest, known.key, known.value(raw));
    if (!value) return undefined;
    // the members' places in the whole text: those after the known one move by its length
    const shift = raw.length - 2;
    const members = new Map<string, [number, number]>();
    for (const [k, [s, e]] of scan.members) members.set(k, s > v ? [s + shift, e + shift] : k === known.key ? [v, v + raw.length] : [s, e]);
    return { value, scan: { depth: scan.depth, members } };
  }
  return undefined;
}

/** `rest`, the body with the member's value written as `[]`, parsed and the known value put in; undefined: parse it all. */
function parsedWith(rest: string, key: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(rest);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  // the key kept its place: the last of duplicate keys, which is what JSON.parse keeps
  (parsed as Record<string, unknown>)[key] = value;
  return parsed as Record<string, unknown>;
}

/** The scan of a text not parsed yet (it may not be JSON: a key's bad escape throws); undefined then. */
function scanned(text: string): JsonScan | undefined {
  try {
    return scanJson(text);
  } catch {
    return undefined;
  }
}
