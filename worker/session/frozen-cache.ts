// The per-isolate cache of sessions' frozen fields (client.ts), bounded by bytes, not by count: a
// session over a large catalog freezes a large deferred section and core list (about 114 KiB at
// 3,004 tools), so a count bound alone lets the cache grow past an isolate's memory (issue 30 M8).
// Sizes are estimated from the strings an entry holds (UTF-16: 2 bytes a character); the oldest
// entries leave first.

/** What the estimate reads of an entry: its big strings. */
export interface Sized {
  systemSection: string;
  coreTools: readonly string[];
}

/** the default bound: well under an isolate's 128 MiB, with room for the catalogs it loads */
export const FROZEN_CACHE_BYTES = 16 * 1024 * 1024;

/** Estimated bytes an entry holds (its strings, and a fixed share for the rest of the object). */
export function entryBytes(v: Sized): number {
  let chars = v.systemSection.length;
  for (const n of v.coreTools) chars += n.length + 8;
  return 2 * chars + 1024;
}

export class ByteBoundedCache<V extends Sized> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;
  readonly maxBytes: number;

  constructor(maxBytes = FROZEN_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.total -= e.bytes;
    this.entries.delete(key);
  }

  /** Keep `value` (newest); the oldest entries leave until the total fits. An entry over the bound is not kept. */
  set(key: string, value: V): void {
    this.delete(key);
    const bytes = entryBytes(value);
    if (bytes > this.maxBytes) return;
    while (this.total + bytes > this.maxBytes) this.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, bytes });
    this.total += bytes;
  }
}
