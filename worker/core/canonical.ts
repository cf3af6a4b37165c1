// Canonical JSON (RFC 8785 style): object keys sorted by UTF-16 code units, no insignificant
// whitespace, `undefined` members dropped. Used for the catalog hash, the client tool-set hash and
// every tool JSON that goes into a prompt, so equal values always serialize to equal bytes. The
// bytes come from the native JSON.stringify: a walk hands it key-sorted copies of the objects whose
// keys are out of order (and of the objects above them), the rest as they are; a value that is not
// plain data (a class instance, a sparse array, a non-finite number, ...) takes the recursive
// serializer, which answers or throws as it always did. For 191 client tools (280 KB) in a fresh
// process the walk and JSON.stringify take a fifth of the recursive serializer's time.

/** The definition, and the serializer for anything the walk leaves alone. */
function recursive(value: unknown): string {
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
    return `[${value.map((v) => (v === undefined ? "null" : recursive(v))).join(",")}]`;
  }
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${recursive(v)}`);
  }
  return `{${parts.join(",")}}`;
}

const NOT_PLAIN = new Error("not plain JSON data");
const OBJECT = Object.prototype;
const ARRAY = Array.prototype;
/** keys an object lists first, in numeric order, whatever order they were made in */
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** A leaf other than a string, which JSON.stringify writes as the recursive serializer does. */
function leaf(v: unknown): void {
  if (typeof v === "number" ? !Number.isFinite(v) : typeof v !== "boolean" && v !== undefined) throw NOT_PLAIN;
}

/** Sorted in place as sort() sorts strings; sort() allocates a kilobyte a call, this nothing. */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 32) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i;
    for (; j > 0 && keys[j - 1]! > k; j--) keys[j] = keys[j - 1]!;
    keys[j] = k;
  }
  return keys;
}

/** `v` with every object's keys in sorted order: `v` itself when they are, else copies down to what is not. */
function sorted(v: object): object {
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== ARRAY) throw NOT_PLAIN;
    let copy: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      if (typeof e === "object" && e !== null) {
        const s = sorted(e);
        if (s !== e) (copy ??= v.slice())[i] = s;
      } else if (typeof e !== "string") {
        leaf(e);
        if (e === undefined && !(i in v)) throw NOT_PLAIN; // a hole, which the recursive serializer writes as nothing
      }
    }
    return copy ?? v;
  }
  if (Object.getPrototypeOf(v) !== OBJECT) throw NOT_PLAIN;
  const o = v as Record<string, unknown>;
  let prev: string | undefined;
  let inOrder = true;
  for (const k in o) {
    if (prev !== undefined && !(prev < k)) inOrder = false;
    prev = k;
  }
  let copy: Record<string, unknown> | undefined;
  if (!inOrder) {
    copy = {};
    for (const k of sortKeys(Object.keys(o))) {
      // a copy lists index keys ("0", "10") first, and `copy.__proto__ = x` sets its prototype
      if (k === "__proto__" || INDEX.test(k)) throw NOT_PLAIN;
      copy[k] = o[k];
    }
  }
  for (const k in o) {
    const e = o[k];
    if (typeof e === "object" && e !== null) {
      const s = sorted(e);
      if (s === e) continue;
      if (!copy) {
        // the keys are in order: a copy made in the same order lists them the same way
        copy = {};
        for (const j of Object.keys(o)) {
          if (j === "__proto__") throw NOT_PLAIN;
          copy[j] = o[j];
        }
      }
      copy[k] = s;
    } else if (typeof e !== "string") leaf(e);
  }
  return copy ?? v;
}

/**
 * Nothing inherited that JSON.stringify or a for-in would see and Object.keys would not: no
 * enumerable member of Object.prototype, no toJSON.
 */
function plainPrototypes(): boolean {
  for (const _ in OBJECT) return false;
  return !("toJSON" in OBJECT) && !("toJSON" in ARRAY);
}

export function canonicalJson(value: unknown): string {
  if (typeof value === "object" && value !== null && plainPrototypes()) {
    try {
      return JSON.stringify(sorted(value));
    } catch {
      // not plain data, or too deep for the walk: the recursive serializer answers or throws
    }
  }
  return recursive(value);
}

/**
 * canonicalJson(values) of an array of objects as UTF-8 bytes, and each element's length in UTF-16
 * code units: the elements' JSON encoded into one buffer, never joined into one text.
 */
export function canonicalArray(values: readonly object[]): { bytes: Uint8Array; lengths: number[] } {
  const parts = values.map(canonicalJson);
  return { bytes: jsonArrayBytes(parts), lengths: parts.map((p) => p.length) };
}

/** The UTF-8 bytes of `[${parts.join(",")}]`. */
function jsonArrayBytes(parts: readonly string[]): Uint8Array {
  const encoder = new TextEncoder();
  let size = parts.length + 1;
  for (const p of parts) size += p.length;
  let bytes = new Uint8Array(size); // one byte a code unit, grown for text that is not ASCII
  let at = 0;
  const put = (text: string) => {
    const done = encoder.encodeInto(text, bytes.subarray(at));
    at += done.written;
    if (done.read === text.length) return;
    const rest = text.slice(done.read);
    const grown = new Uint8Array(bytes.length * 2 + rest.length * 3);
    grown.set(bytes.subarray(0, at));
    bytes = grown;
    at += encoder.encodeInto(rest, bytes.subarray(at)).written;
  };
  put("[");
  parts.forEach((p, i) => {
    if (i) put(",");
    put(p);
  });
  put("]");
  return bytes.subarray(0, at);
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
