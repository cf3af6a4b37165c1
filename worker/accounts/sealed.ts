// Encryption at rest of what a principal's store keeps of its upstream accounts (tokens, client
// registrations): AES-256-GCM (WebCrypto), the key derived with HKDF-SHA-256 from the Worker
// secret TOKEN_ENCRYPTION_KEY. Each value is sealed with a fresh 96-bit IV and bound to where it
// belongs (principal, server, kind) as additional data, so a value copied to another row or
// principal does not open. Stored as base64: `v1.<iv>.<ciphertext+tag>`.

import { ToolsearchError } from "../core/errors.ts";

const keys = new Map<string, Promise<CryptoKey>>();

function keyOf(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle
      .importKey("raw", new TextEncoder().encode(secret), "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: new TextEncoder().encode("toolsearch accounts v1") },
          base,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keys.set(secret, key);
  }
  return key;
}

/** The key from the secret; a config error naming it when it is not set or too short. */
export function sealingSecret(secret: string | undefined): string {
  if (!secret || secret.length < 32)
    throw new ToolsearchError(
      "internal",
      'TOKEN_ENCRYPTION_KEY is not set (or shorter than 32 characters): servers with "auth": "oauth" need it (wrangler secret put TOKEN_ENCRYPTION_KEY)',
    );
  return secret;
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export async function seal(secret: string, where: string, value: unknown): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = new TextEncoder().encode(JSON.stringify(value));
  const data = new TextEncoder().encode(where);
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: data }, await keyOf(secret), plain);
  return `v1.${b64(iv)}.${b64(new Uint8Array(sealed))}`;
}

/** The value, or null when it does not open (another key, another place, tampered). */
export async function open<T>(secret: string, where: string, text: string): Promise<T | null> {
  const [v, iv, body] = text.split(".");
  if (v !== "v1" || !iv || !body) return null;
  try {
    const data = new TextEncoder().encode(where);
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv), additionalData: data }, await keyOf(secret), unb64(body));
    return JSON.parse(new TextDecoder().decode(plain)) as T;
  } catch {
    return null;
  }
}
