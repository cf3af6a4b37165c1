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
    expect(cache.has("s9999")).toBe(true);
    expect(cache.has("s0")).toBe(false);
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
