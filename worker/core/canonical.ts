// Canonical JSON (RFC 8785 style): object keys sorted by UTF-16 code units, no insignificant
// whitespace, `undefined` members dropped. Used for the catalog hash and for every tool JSON
// that goes into a prompt, so equal values always serialize to equal bytes.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new TypeError(`canonicalJson: ${value} is not valid JSON`);
    }
    if (value === undefined || typeof value === "function" || typeof value === "symbol") {
      throw new TypeError(`canonicalJson: ${typeof value} is not valid JSON`);
    }
    if (typeof value === "bigint") throw new TypeError("canonicalJson: bigint is not valid JSON");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  }
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(",")}}`;
}

/** sha256 of a UTF-8 string as lowercase hex (WebCrypto: the same in Node and workerd). */
export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  // (typed for the DOM lib too: the page bundles this module for canonicalJson)
  const bytes = (typeof text === "string" ? new TextEncoder().encode(text) : text) as Uint8Array<ArrayBuffer>;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A small synchronous 64-bit FNV-1a hash as 16 hex chars, for deterministic name suffixes. */
export function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= BigInt(byte);
    h = (h * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, "0");
}
