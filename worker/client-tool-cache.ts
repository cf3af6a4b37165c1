// The per-isolate cache of client tool sets (worker/core/client-tools.ts), keyed by the sha256 of
// the tools' canonical JSON: an agent that sends the same 200 tools on every request has them
// indexed once per isolate, not per request. Bounded by estimated bytes, least recently used
// first out: an isolate has 128 MB, shared with the catalogs, so many distinct tool sets evict
// one another instead of exhausting it. A set larger than the whole budget is built and not kept.

import { canonicalJson, sha256Hex } from "./core/canonical.ts";
import type { OpenAITool } from "./core/chat.ts";
import { buildClientToolSet, type ClientToolSet } from "./core/client-tools.ts";

export const CLIENT_TOOL_CACHE_BYTES = 24 * 1024 * 1024;

const cache = new Map<string, ClientToolSet>();
let held = 0;

/** The built set for these tools: from the cache, or built now (and kept while it fits). */
export async function clientToolSet(tools: readonly OpenAITool[]): Promise<ClientToolSet> {
  const canonical = tools.map(canonicalJson);
  const hash = await sha256Hex(`[${canonical.join(",")}]`);
  const hit = cache.get(hash);
  if (hit) {
    // re-inserted: a Map iterates in insertion order, so the first key is the least recently used
    cache.delete(hash);
    cache.set(hash, hit);
    return hit;
  }
  const set = buildClientToolSet(tools, canonical, hash);
  if (set.bytes > CLIENT_TOOL_CACHE_BYTES) return set;
  cache.set(hash, set);
  held += set.bytes;
  for (const [key, old] of cache) {
    if (held <= CLIENT_TOOL_CACHE_BYTES) break;
    cache.delete(key);
    held -= old.bytes;
  }
  return set;
}

/** What the cache holds now (tests and benchmarks). */
export function clientToolCacheStats(): { sets: number; bytes: number } {
  return { sets: cache.size, bytes: held };
}
