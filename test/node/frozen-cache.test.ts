// The per-isolate cache of sessions' frozen fields is bounded by bytes (issue 30 M8): entries the
// size of a 3,004-tool session's (about 114 KiB) can never hold more than the bound.
import { describe, expect, it } from "vitest";
import { ByteBoundedCache, entryBytes, FROZEN_CACHE_BYTES } from "../../worker/session/frozen-cache.ts";

const entry = (chars: number) => ({ systemSection: "x".repeat(chars), coreTools: ["mcp__a__b"] });

describe("frozen-session cache (M8)", () => {
  it("10,000 sessions of 114 KiB each stay within the byte bound; the newest are kept", () => {
    const cache = new ByteBoundedCache<ReturnType<typeof entry>>();
    const big = entry(57 * 1024); // 114 KiB in UTF-16
    for (let i = 0; i < 10_000; i++) cache.set(`s${i}`, big);
    expect(cache.bytes).toBeLessThanOrEqual(FROZEN_CACHE_BYTES);
    expect(cache.size).toBe(Math.floor(FROZEN_CACHE_BYTES / entryBytes(big)));
    // counted without the cache's own size function or totals: the entries it answers for, at
    // 2 bytes a UTF-16 character of their strings, fit the bound; they are the newest, in one run
    const kept = Array.from({ length: 10_000 }, (_, i) => `s${i}`).filter((k) => cache.get(k) !== undefined);
    const utf16 = (v: ReturnType<typeof entry>) => 2 * (v.systemSection.length + v.coreTools.join("").length);
    const held = kept.reduce((sum, k) => sum + utf16(cache.get(k)!), 0);
    expect(held).toBeLessThanOrEqual(FROZEN_CACHE_BYTES);
    expect(held).toBeGreaterThan(FROZEN_CACHE_BYTES - 2 * utf16(big));
    expect(kept[0]).toBe(`s${10_000 - kept.length}`);
    expect(kept.at(-1)).toBe("s9999");
  });

  it("replacing and deleting keep the count of bytes exact; an entry over the bound is not kept", () => {
    const cache = new ByteBoundedCache<ReturnType<typeof entry>>(10_000);
    cache.set("a", entry(1000));
    cache.set("a", entry(2000));
    expect(cache.bytes).toBe(entryBytes(entry(2000)));
    cache.delete("a");
    expect(cache.bytes).toBe(0);
    cache.set("huge", entry(10_000));
    expect(cache.size).toBe(0);
  });
});
