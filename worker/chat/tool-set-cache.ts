// The per-isolate cache of client tool sets (worker/core/client-tools.ts): an agent that sends the
// same 200 tools on every request has them indexed once per isolate, not per request. A set is
// identified by the sha256 of its tools' canonical JSON (plans and conversation keys use it), and
// found by a key: the request's `tools` member as the client sent it (core/json-member.ts), with
// the surface that derived the tools from it, or else the tools' JSON.stringify (a
// JSON.stringify of 280 KB of tools per request cost about 0.6 ms in workerd; the raw member is
// found in the scan the body gets anyway, and allocates no copy). A Map hashes every character of
// a key it is given, 0.4 ms for such a key: entries are found by the key's length and ends, and
// the whole key is then compared (natively, at memory speed); two sets with equal length and ends
// only take each other's place. The same
// tools sent with another key order or spacing hash the same and reuse the built set. Bounded by
// estimated bytes, least recently used first out: an isolate has 128 MB, shared with the catalogs,
// so many distinct tool sets evict one another instead of exhausting it. A set larger than the
// whole budget is built and not kept.

import { canonicalArray, sha256Hex } from "../core/canonical.ts";
import type { OpenAITool } from "../core/chat.ts";
import { buildClientToolSet, type ClientToolSet } from "../core/client-tools.ts";
import type { KnownMember } from "../core/known-member.ts";

export const CLIENT_TOOL_CACHE_BYTES = 24 * 1024 * 1024;

interface Entry {
  set: ClientToolSet;
  surface: string;
  /** what the key's raw member parses to, frozen (parsedMember) */
  value?: unknown;
  /** the JSON a surface writes of that member's tools (memberJson) */
  json?: string;
  /** the whole key (the Map's key is its fingerprint) */
  key: string;
  /** the set, and the key string (UTF-16 at worst); a set shared by two keys counts twice */
  bytes: number;
}
const cache = new Map<string, Entry>();
let held = 0;

/**
 * A key a kept entry holds: its own copy, so a raw member cut from a body keeps no body alive. V8
 * writes the concatenation out as one new string before slicing it, and the slice holds only that
 * (half what a TextEncoder and TextDecoder round trip cost).
 */
const own = (key: string) => ` ${key}`.slice(1);

/**
 * What a surface found its tools in: its name and the request's raw `tools` member
 * (core/json-member.ts), and what that member parsed to (kept with the set: parsedMember).
 */
export interface ToolsKey {
  surface: string;
  raw: string;
  value?: unknown;
}

/**
 * A key's surface, length and first and last 128 characters: hashed in no time, rarely shared.
 * (`raw` is a slice of the request's text: it is never concatenated, since slicing the result
 * would copy all of it.)
 */
const fingerprint = (k: ToolsKey) =>
  k.raw.length <= 512
    ? `${k.surface}\u0000${k.raw}`
    : `${k.surface}\u0000${k.raw.length}\u0000${k.raw.slice(0, 128)}\u0000${k.raw.slice(-128)}`;

/**
 * What `raw`, a `tools` member a request of `surface` sent, parsed to when its set was built:
 * the same text always parses to the same value, so a body whose member is known is parsed
 * without it (http.ts readJsonText: 290 KB of tools, 1.5 ms of JSON.parse and its garbage). The
 * value is shared by every request that sends the member: it is frozen, the array and the two
 * levels of objects below it (a tool and its function; schemas are only read).
 */
export function parsedMember(surface: string, raw: string): unknown {
  const hit = cache.get(fingerprint({ surface, raw }));
  return hit?.key === raw ? hit.value : undefined;
}

/**
 * The JSON `make` writes of `raw`'s tools (a Responses answer echoes them: 280 KB of
 * JSON.stringify for 191 tools, on every request), made once per kept entry: the same text
 * always parses to the same tools. Made anew when no entry keeps `raw`.
 */
export function memberJson(surface: string, raw: string, make: () => string): string {
  const hit = cache.get(fingerprint({ surface, raw }));
  if (hit?.key !== raw) return make();
  if (hit.json === undefined) {
    hit.json = make();
    hit.bytes += 2 * hit.json.length;
    held += 2 * hit.json.length;
  }
  return hit.json;
}

/** The `tools` members of `surface` whose parsed value is kept, for http.ts readJsonText (core/known-member.ts). */
export function knownTools(surface: string): KnownMember {
  return {
    key: "tools",
    value: (raw) => parsedMember(surface, raw),
    *texts() {
      for (const e of cache.values()) if (e.surface === surface && e.value !== undefined) yield e.key;
    },
  };
}

function frozen(value: unknown): unknown {
  if (!Array.isArray(value)) return undefined;
  for (const item of value) {
    if (!item || typeof item !== "object") continue;
    for (const v of Object.values(item)) if (v && typeof v === "object") Object.freeze(v);
    Object.freeze(item);
  }
  return Object.freeze(value);
}

/**
 * The built set for these tools: from the cache, or built now (and kept while it fits). `key`: what
 * the same tools always come with (the surface, and its raw `tools` member, which always parses
 * and translates to the same tools); without one, their JSON.
 */
export async function clientToolSet(tools: readonly OpenAITool[], key?: ToolsKey): Promise<ClientToolSet> {
  const k = key ?? { surface: "", raw: JSON.stringify(tools) };
  const print = fingerprint(k);
  const hit = cache.get(print);
  if (hit?.key === k.raw) {
    // re-inserted: a Map iterates in insertion order, so the first key is the least recently used
    cache.delete(print);
    cache.set(print, hit);
    return hit.set;
  }
  if (hit) {
    cache.delete(print);
    held -= hit.bytes;
  }
  // the hash of `[${tools.map(canonicalJson).join(",")}]`, its text never made
  const canonical = canonicalArray(tools);
  const hash = await sha256Hex(canonical.bytes);
  let set: ClientToolSet | undefined;
  for (const e of cache.values()) if (e.set.hash === hash) set = e.set;
  set ??= buildClientToolSet(tools, canonical.lengths, hash);
  // the parsed member, when kept, about as much again as its text
  const value = key?.value === undefined ? undefined : frozen(key.value);
  const bytes = set.bytes + (value === undefined ? 2 : 4) * k.raw.length;
  if (bytes > CLIENT_TOOL_CACHE_BYTES) return set;
  // kept as a copy, its fingerprint made from the copy: slices of the request's text would keep it alive
  const kept = { surface: k.surface, raw: key ? own(k.raw) : k.raw };
  cache.set(fingerprint(kept), { set, surface: k.surface, bytes, key: kept.raw, ...(value === undefined ? {} : { value }) });
  held += bytes;
  for (const [old, entry] of cache) {
    if (held <= CLIENT_TOOL_CACHE_BYTES) break;
    cache.delete(old);
    held -= entry.bytes;
  }
  return set;
}

/** What the cache holds now (tests and benchmarks). */
export function clientToolCacheStats(): { entries: number; bytes: number } {
  return { entries: cache.size, bytes: held };
}
