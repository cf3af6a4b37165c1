// Encryption at rest of what a principal's store keeps of its upstream accounts (tokens, client
// registrations): AES-256-GCM (WebCrypto), the key derived with HKDF-SHA-256 from the Worker
// secret TOKEN_ENCRYPTION_KEY. Each value is sealed with a fresh 96-bit IV and bound to where it
// belongs (principal, server, kind) as additional data, so a value copied to another row or
// principal does not open. Stored as base64: `v1.<iv>.<ciphertext+tag>`. Rotation (R2-L5):
// TOKEN_ENCRYPTION_KEY_PREVIOUS, when set, still opens what the old key sealed (the caller seals
// it again with the new key), so connections stay usable and revocable across a re-key. The same
// secret also signs connect flows (HMAC-SHA-256, another HKDF label), so a forged callback is
// refused before any principal object is addressed.

import { ToolsearchError } from "../core/errors.ts";

const keys = new Map<string, Promise<CryptoKey>>();

function derive(secret: string, info: string, algorithm: Parameters<SubtleCrypto["deriveKey"]>[2], usages: string[]): Promise<CryptoKey> {
  const id = `${info}\u0000${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode(info) },
          base,
          algorithm,
          false,
          usages,
        ),
      );
    keys.set(id, key);
  }
  return key;
}

const aesKey = (secret: string) => derive(secret, "toolsearch accounts v1", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
const macKey = (secret: string) => derive(secret, "toolsearch connect flow v1", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);

/** The current key, and the previous one while a rotation is under way. */
export interface SealingKeys {
  current: string;
  previous?: string;
}

/** The keys from the Worker's secrets; a config error naming the one not set or too short. */
export function sealingKeys(secret: (name: string) => string | undefined): SealingKeys {
  const read = (name: string, required: boolean) => {
    const value = secret(name);
    if (!value && !required) return undefined;
    if (!value || value.length < 32)
      throw new ToolsearchError(
        "internal",
        `${name} is not set (or shorter than 32 characters): servers with "auth": "oauth" need it (wrangler secret put ${name})`,
      );
    return value;
  };
  const previous = read("TOKEN_ENCRYPTION_KEY_PREVIOUS", false);
  return { current: read("TOKEN_ENCRYPTION_KEY", true)!, ...(previous ? { previous } : {}) };
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const b64url = (bytes: Uint8Array) => b64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

export async function seal(secret: string, where: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(value));
  const data = new TextEncoder().encode(where);
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: data }, await aesKey(secret), plain);
  return `v1.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
}

/** The value, or null when it does not open (another key, another place, tampered). */
export async function open<T>(secret: string, where: string, text: string): Promise<T | null> {
  const [v, iv, body] = text.split(".");
  if (v !== "v1" || !iv || !body) return null;
  try {
    const data = new TextEncoder().encode(where);
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv), additionalData: data }, await aesKey(secret), unb64(body));
    return JSON.parse(new TextDecoder().decode(plain)) as T;
  } catch {
    return null;
  }
}

/** Opened with the current key, or with the previous one (`stale`: seal it again); null when neither opens it. */
export async function openEither<T>(k: SealingKeys, where: string, text: string): Promise<{ value: T; stale: boolean } | null> {
  const value = await open<T>(k.current, where, text);
  if (value !== null) return { value, stale: false };
  const old = k.previous ? await open<T>(k.previous, where, text) : null;
  return old === null ? null : { value: old, stale: true };
}

/** A 128-bit tag over `text`, base64url (22 characters). */
export async function sign(secret: string, text: string): Promise<string> {
  const tag = await crypto.subtle.sign("HMAC", await macKey(secret), new TextEncoder().encode(text));
  return b64url(new Uint8Array(tag, 0, 16));
}

/** Whether `tag` is sign(text) under the current or the previous key (compared in constant time). */
export async function signed(k: SealingKeys, text: string, tag: string): Promise<boolean> {
  const given = new TextEncoder().encode(tag);
  for (const secret of [k.current, k.previous]) {
    if (!secret) continue;
    const want = new TextEncoder().encode(await sign(secret, text));
    if (want.byteLength === given.byteLength && crypto.subtle.timingSafeEqual(want, given)) return true;
  }
  return false;
}
