// Session ids that prove themselves: `ses_` + base64url of 16 random (or key-derived) bytes and 8
// bytes of HMAC-SHA256 over (tenant, those 16 bytes). An id that fails the check is a 404 without
// reaching a Durable Object: in workerd, merely addressing an object gives it storage, so
// probes of unknown ids, or of another tenant's, must stop here (issue 22). The HMAC key is the
// secret SESSION_ID_SECRET when set (then ids cannot be forged), else a fixed one (random probes
// are still refused; a tenant who forges ids only creates empty objects in its own namespace).

const FIXED_KEY = "toolsearch session ids v1";
const keys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string | undefined): Promise<CryptoKey> {
  const k = secret ?? FIXED_KEY;
  let key = keys.get(k);
  if (!key) {
    key = crypto.subtle.importKey("raw", new TextEncoder().encode(k), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    keys.set(k, key);
  }
  return key;
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");

async function tag(secret: string | undefined, tenant: string, body: Uint8Array): Promise<Uint8Array> {
  const msg = new Uint8Array([...new TextEncoder().encode(tenant), 0, ...body]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), msg)).subarray(0, 8);
}

/** The id for 16 bytes (random, or derived from a key) in a tenant. */
export async function sessionIdOf(secret: string | undefined, tenant: string, body: Uint8Array): Promise<string> {
  const b = body.subarray(0, 16);
  return `ses_${b64url(new Uint8Array([...b, ...(await tag(secret, tenant, b))]))}`;
}

/** Whether `id` (already of the id shape) was issued for `tenant`. */
export async function issuedFor(secret: string | undefined, tenant: string, id: string): Promise<boolean> {
  const raw = atob(id.slice(4).replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(raw, (ch) => ch.charCodeAt(0));
  const expected = await tag(secret, tenant, bytes.subarray(0, 16));
  let diff = 0;
  for (let i = 0; i < 8; i++) diff |= expected[i]! ^ bytes[16 + i]!;
  return diff === 0;
}
