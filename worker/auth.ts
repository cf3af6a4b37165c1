// API keys and tenants. Every /v1/* and /mcp request needs `Authorization: Bearer <key>` (or
// `x-api-key: <key>`, as Anthropic's clients send it); the secret
// API_KEYS maps keys to tenants as JSON `{ "<key>": "<tenant>" }`. Keys are compared as SHA-256
// digests with crypto.subtle.timingSafeEqual, every configured key each time, so neither the
// answer's timing nor its body tells a caller how close a guess was. A missing or wrong key is a
// 401 and says nothing else. The digest of a key that matched is kept for the isolate's life, so
// a client's next requests skip hashing it (RESULTS.md section 8 measures what that costs).

import { ToolsearchError } from "./core/errors.ts";

export const TENANT_RE = /^[A-Za-z0-9_.-]{1,64}$/;

interface Keys {
  raw: string | undefined;
  digests: Array<{ digest: ArrayBuffer; tenant: string }>;
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

async function keys(raw: string | undefined): Promise<Keys> {
  if (cached && cached.raw === raw) return cached;
  if (!raw)
    throw new ToolsearchError("internal", "API_KEYS is not configured: set it with `wrangler secret put API_KEYS` (see .dev.vars.example)");
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ToolsearchError("internal", 'API_KEYS is not valid JSON; expected {"<key>": "<tenant>", ...}');
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed) || !Object.keys(parsed).length) {
    throw new ToolsearchError("internal", 'API_KEYS must be a non-empty JSON object {"<key>": "<tenant>", ...}');
  }
  const digests = [];
  for (const [key, tenant] of Object.entries(parsed as Record<string, unknown>)) {
    if (key.length < 16) throw new ToolsearchError("internal", "API_KEYS: every key must be at least 16 characters");
    if (typeof tenant !== "string" || !TENANT_RE.test(tenant))
      throw new ToolsearchError("internal", "API_KEYS: every tenant must be 1-64 letters, digits, _ . or -");
    digests.push({ digest: await digest(key), tenant });
  }
  cached = { raw, digests };
  return cached;
}

const DENIED = "missing or invalid API key (send Authorization: Bearer <key>)";

/** The tenant of the request's key; 401 without a valid one. */
export async function authenticate(request: Request, apiKeys: string | undefined): Promise<string> {
  const { digests } = await keys(apiKeys);
  // x-api-key: Anthropic's clients send the key so (Claude Code's ANTHROPIC_API_KEY, the Anthropic SDK)
  const m = /^Bearer +(\S+) *$/i.exec(request.headers.get("authorization") ?? "") ?? /^(\S+)$/.exec(request.headers.get("x-api-key") ?? "");
  if (!m) throw new ToolsearchError("unauthorized", DENIED);
  const key = m[1]!;
  const given = matched.get(key) ?? (await digest(key));
  let tenant: string | undefined;
  for (const k of digests) if (crypto.subtle.timingSafeEqual(given, k.digest)) tenant = k.tenant;
  if (!tenant) throw new ToolsearchError("unauthorized", DENIED);
  if (!matched.has(key)) {
    if (matched.size >= MATCHED_MAX) matched.clear(); // keys replaced many times in one isolate's life
    matched.set(key, given);
  }
  return tenant;
}
