// API keys and who is calling. Every /v1/* and /mcp request needs `Authorization: Bearer <key>` (or
// `x-api-key: <key>`, as Anthropic's clients send it); the secret API_KEYS maps each key to a
// tenant, `{ "<key>": "<tenant>" }`, or to a tenant and a user,
// `{ "<key>": { "tenant": "...", "user": "..." } }`. A key with `"assertsUser": true` may
// name the user per request in `x-toolsearch-user` (a backend that authenticates its own users);
// without the header its own `user` (if any) holds. The (tenant, user) pair is the principal:
// sessions are issued for it and freeze it, and per-user upstream accounts are kept under it.
// Keys are compared as SHA-256 digests with crypto.subtle.timingSafeEqual, every configured key
// each time, so neither the answer's timing nor its body tells a caller how close a guess was. A
// missing or wrong key is a 401 and says nothing else. The digest of a key that matched is kept
// for the isolate's life, so a client's next requests skip hashing it (RESULTS.md section 8). The
// caller also carries a key id (part of the digest) that quotas count under (session/quota-client.ts).

import { ToolsearchError } from "./core/errors.ts";

export const TENANT_RE = /^[A-Za-z0-9_.-]{1,64}$/;
export const USER_RE = /^[A-Za-z0-9_.@+-]{1,128}$/;
export const USER_HEADER = "x-toolsearch-user";

/** Who is calling: the key's tenant, and the user ("" when the key names none). */
export interface Principal {
  tenant: string;
  user: string;
}

/** The principal and which key it came with: `key` is the first 16 hex digits of the key's SHA-256 (quotas count per key). */
export type Caller = Principal & { key: string };

interface KeyEntry {
  digest: ArrayBuffer;
  tenant: string;
  user: string;
  assertsUser: boolean;
}

interface Keys {
  raw: string | undefined;
  digests: KeyEntry[];
}

let cached: Keys | undefined;

// Digests of keys that matched (a digest depends only on the key, so a change of API_KEYS cannot
// make one wrong: the comparison below still decides). Only a matching key is added, so guesses
// cannot grow it; a Map lookup compares whole strings after their hash, never a common prefix.
const matched = new Map<string, ArrayBuffer>();
const MATCHED_MAX = 64;

async function digest(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
}

const SHAPE = 'expected {"<key>": "<tenant>"} or {"<key>": {"tenant": "...", "user": "...", "assertsUser": false}}';

/** One API_KEYS value: a tenant string, or { tenant, user?, assertsUser? }. */
function entryOf(value: unknown): Omit<KeyEntry, "digest"> {
  const e: Record<string, unknown> = typeof value === "string" ? { tenant: value } : value && typeof value === "object" ? { ...value } : {};
  const unknown = Object.keys(e).find((k) => !["tenant", "user", "assertsUser"].includes(k));
  if (unknown) throw new ToolsearchError("internal", `API_KEYS: "${unknown.slice(0, 40)}" is not a key setting; ${SHAPE}`);
  if (typeof e.tenant !== "string" || !TENANT_RE.test(e.tenant))
    throw new ToolsearchError("internal", "API_KEYS: every tenant must be 1-64 letters, digits, _ . or -");
  if (e.user !== undefined && (typeof e.user !== "string" || !USER_RE.test(e.user)))
    throw new ToolsearchError("internal", "API_KEYS: a user must be 1-128 letters, digits, _ . @ + or -");
  if (e.assertsUser !== undefined && typeof e.assertsUser !== "boolean")
    throw new ToolsearchError("internal", "API_KEYS: assertsUser must be true or false");
  return { tenant: e.tenant, user: (e.user as string | undefined) ?? "", assertsUser: e.assertsUser === true };
}

async function keys(raw: string | undefined): Promise<Keys> {
  if (cached && cached.raw === raw) return cached;
  if (!raw)
    throw new ToolsearchError("internal", "API_KEYS is not configured: set it with `wrangler secret put API_KEYS` (see .dev.vars.example)");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ToolsearchError("internal", `API_KEYS is not valid JSON; ${SHAPE}`);
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !Object.keys(parsed).length) {
    throw new ToolsearchError("internal", `API_KEYS must be a non-empty JSON object; ${SHAPE}`);
  }
  const digests: KeyEntry[] = [];
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (key.length < 16) throw new ToolsearchError("internal", "API_KEYS: every key must be at least 16 characters");
    digests.push({ digest: await digest(key), ...entryOf(value) });
  }
  cached = { raw, digests };
  return cached;
}

const DENIED = "missing or invalid API key (send Authorization: Bearer <key>)";
// a client that sent x-api-key (Anthropic's clients) is told about the header it sent, not Bearer
const DENIED_X_API_KEY = "invalid API key in x-api-key (send x-api-key: <key>, a key of API_KEYS)";

/** The entry of `key` and its id; 401 when it is not a key. */
async function lookup(apiKeys: string | undefined, key: string, denied = DENIED): Promise<{ found: KeyEntry; id: string }> {
  const { digests } = await keys(apiKeys);
  const given = matched.get(key) ?? (await digest(key));
  let found: KeyEntry | undefined;
  for (const k of digests) if (crypto.subtle.timingSafeEqual(given, k.digest)) found = k;
  if (!found) throw new ToolsearchError("unauthorized", denied);
  if (!matched.has(key)) {
    if (matched.size >= MATCHED_MAX) matched.clear(); // keys replaced many times in one isolate's life
    matched.set(key, given);
  }
  const id = [...new Uint8Array(found.digest, 0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { found, id };
}

/** The principal of the request's key; 401 without a valid one. */
export async function authenticate(request: Request, apiKeys: string | undefined): Promise<Caller> {
  // x-api-key: Anthropic's clients send the key so (Claude Code's ANTHROPIC_API_KEY, the Anthropic SDK)
  const bearer = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "");
  const xApiKey = request.headers.get("x-api-key");
  const m = bearer ?? /^(\S+)$/.exec(xApiKey ?? "");
  const denied = !bearer && xApiKey !== null ? DENIED_X_API_KEY : DENIED;
  if (!m) throw new ToolsearchError("unauthorized", denied);
  const { found, id } = await lookup(apiKeys, m[1]!, denied);
  const asserted = request.headers.get(USER_HEADER);
  if (asserted === null) return { tenant: found.tenant, user: found.user, key: id };
  if (!found.assertsUser)
    throw new ToolsearchError("forbidden", `${USER_HEADER}: this API key may not name a user (API_KEYS: "assertsUser": true)`);
  if (!USER_RE.test(asserted)) throw new ToolsearchError("bad_request", `${USER_HEADER}: must be 1-128 letters, digits, _ . @ + or -`);
  return { tenant: found.tenant, user: asserted, key: id };
}

/**
 * `key` as the caller it is when acting as `p` (the connect page's proof, routes/connect.ts): a key
 * of p's tenant that is p's own (its user), or that may name users (`assertsUser`, or no user of its
 * own: the end-user ids a surface carries). 401 for no key; 403 for another principal's key.
 */
export async function keyActingAs(key: string, p: Principal, apiKeys: string | undefined, userless = false): Promise<Caller> {
  const { found, id } = await lookup(apiKeys, key);
  const names = found.assertsUser || found.user === "";
  // `userless`: the principal may be a tenant's own (an approval of a key that names no user)
  if (found.tenant !== p.tenant || (!names && found.user !== p.user) || (!p.user && !userless))
    throw new ToolsearchError("forbidden", `this API key is not one of ${p.tenant}/${p.user}: the link was made for another account`);
  return { tenant: p.tenant, user: p.user, key: id };
}

/** The namespace sessions are issued in: the tenant, or the tenant and the user (ids.ts, create.ts). */
export function principalScope(p: Pick<Principal, "tenant"> & Partial<Principal>): string {
  return p.user ? `${p.tenant}\u0000${p.user}` : p.tenant;
}
