// The per-isolate cache of client tool sets (worker/core/client-tools.ts): an agent that sends the
// same 200 tools on every request has them indexed once per isolate, not per request. A set is
// identified by the sha256 of its tools' canonical JSON (plans and conversation keys use it), and
// found by the tools' JSON as sent: JSON.stringify and a Map of strings (hashed and compared
// natively) took about half the time of canonical JSON + sha256 per request for 2,000 tools; the
// same tools sent with another key order hash the same and reuse the built set. Bounded by estimated
// bytes, least recently used first out: an isolate has 128 MB, shared with the catalogs, so many
// distinct tool sets evict one another instead of exhausting it. A set larger than the whole
// budget is built and not kept.

import { canonicalJson, sha256Hex } from "../core/canonical.ts";
import type { OpenAITool } from "../core/chat.ts";
import { buildClientToolSet, type ClientToolSet } from "../core/client-tools.ts";

export const CLIENT_TOOL_CACHE_BYTES = 24 * 1024 * 1024;

interface Entry {
  set: ClientToolSet;
  /** the set, and the key string (UTF-16 at worst); a set shared by two keys counts twice */
  bytes: number;
}
const cache = new Map<string, Entry>();
let held = 0;

/** The built set for these tools: from the cache, or built now (and kept while it fits). */
export async function clientToolSet(tools: readonly OpenAITool[]): Promise<ClientToolSet> {
  const text = JSON.stringify(tools);
  const hit = cache.get(text);
  if (hit) {
    // re-inserted: a Map iterates in insertion order, so the first key is the least recently used
    cache.delete(text);
    cache.set(text, hit);
    return hit.set;
  }
  const canonical = tools.map(canonicalJson);
  const hash = await sha256Hex(`[${canonical.join(",")}]`);
  let set: ClientToolSet | undefined;
  for (const e of cache.values()) if (e.set.hash === hash) set = e.set;
  set ??= buildClientToolSet(tools, canonical, hash);
  const bytes = set.bytes + 2 * text.length;
  if (bytes > CLIENT_TOOL_CACHE_BYTES) return set;
  cache.set(text, { set, bytes });
  held += bytes;
  for (const [key, old] of cache) {
    if (held <= CLIENT_TOOL_CACHE_BYTES) break;
    cache.delete(key);
    held -= old.bytes;
  }
  return set;
}

/** What the cache holds now (tests and benchmarks). */
export function clientToolCacheStats(): { entries: number; bytes: number } {
  return { entries: cache.size, bytes: held };
}
