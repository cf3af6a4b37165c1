// How the Worker reaches catalog servers: the SERVERS var, pure. Deployment config, never catalog
// content. Per catalog server: its Streamable HTTP `url` (SSE is tried when the server refuses
// Streamable HTTP), `headers`, `timeoutMs`. Given as a wrangler.toml table or as the same JSON in
// a string (`--var 'SERVERS:{...}'`). `${NAME}` in a header value is a Worker secret, resolved at
// call time; resolved values are redacted from everything the Worker reports (redact()).
// `"auth": "oauth"`: the server authorizes each user (MCP authorization, OAuth 2.1): calls carry
// the calling user's own token (accounts/principal-role.ts), with optional `scopes`, and `clientId`
// (`clientSecret` as a `${SECRET}`) where the server offers no dynamic client registration, and
// `issuer`: the authorization server this entry must use (accounts/issuer-pin.ts: a mix-up guard).

import { ToolsearchError } from "./errors.ts";
import { secureOrLoopback } from "./oauth-url.ts";

/** A server whose users each authorize the Worker (OAuth): what the Worker asks for and who it is. */
export interface OAuthConfig {
  scopes: string[];
  clientId?: string;
  /** the secret's name (`${NAME}` in SERVERS) */
  clientSecret?: string;
  /** the authorization server's issuer identifier (RFC 8414) this entry is pinned to */
  issuer?: string;
}

export interface ServerConfig {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  oauth?: OAuthConfig;
}

export type Servers = ReadonlyMap<string, ServerConfig>;

export const DEFAULT_SERVER_TIMEOUT_MS = 30_000;
const SECRET_RE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
/** the settings of one SERVERS entry (worker/config/servers.ts checks a deployment's against them) */
export const SERVER_KEYS = ["url", "headers", "timeoutMs", "auth", "scopes", "clientId", "clientSecret", "issuer"] as const;
const KEYS: ReadonlySet<string> = new Set(SERVER_KEYS);
const ONE_SECRET_RE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

const bad = (m: string) => new ToolsearchError("internal", `SERVERS: ${m}`);

export function parseServers(raw: unknown): Servers {
  if (raw === undefined || raw === null || raw === "") return new Map();
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      throw bad('not valid JSON; expected {"<server>": {"url": "...", "headers": {...}, "timeoutMs": 30000}}');
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) throw bad("must be a table of servers");
  const out = new Map<string, ServerConfig>();
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) throw bad(`${name} must be a table with a url`);
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).find((k) => !KEYS.has(k));
    if (unknown) throw bad(`${name}.${unknown} is not a setting (${SERVER_KEYS.join(", ")})`);
    let url: URL;
    try {
      url = new URL(String(e.url));
    } catch {
      throw bad(`${name}.url must be an http(s) URL`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw bad(`${name}.url must be an http(s) URL`);
    const headers = (e.headers ?? {}) as Record<string, unknown>;
    if (typeof headers !== "object" || Array.isArray(headers) || Object.values(headers).some((v) => typeof v !== "string"))
      throw bad(`${name}.headers must map names to strings`);
    const timeoutMs = e.timeoutMs ?? DEFAULT_SERVER_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || (timeoutMs as number) < 1) throw bad(`${name}.timeoutMs must be a positive integer`);
    const oauth = oauthOf(name, e);
    out.set(name, {
      url: url.href,
      headers: headers as Record<string, string>,
      timeoutMs: timeoutMs as number,
      ...(oauth ? { oauth } : {}),
    });
  }
  return out;
}

function oauthOf(name: string, e: Record<string, unknown>): OAuthConfig | undefined {
  if (e.auth === undefined) {
    const stray = ["scopes", "clientId", "clientSecret", "issuer"].find((k) => e[k] !== undefined);
    if (stray) throw bad(`${name}.${stray} needs "auth": "oauth"`);
    return undefined;
  }
  if (e.auth !== "oauth") throw bad(`${name}.auth must be "oauth" (or absent: static headers)`);
  const scopes = e.scopes ?? [];
  if (!Array.isArray(scopes) || scopes.some((x) => typeof x !== "string" || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(x)))
    throw bad(`${name}.scopes must be a list of scope names`);
  if (e.clientId !== undefined && (typeof e.clientId !== "string" || !e.clientId)) throw bad(`${name}.clientId must be a string`);
  let clientSecret: string | undefined;
  if (e.clientSecret !== undefined) {
    const m = typeof e.clientSecret === "string" ? ONE_SECRET_RE.exec(e.clientSecret) : null;
    if (!m) throw bad(`${name}.clientSecret must name a Worker secret as "\${NAME}", never the value itself`);
    if (e.clientId === undefined) throw bad(`${name}.clientSecret needs a clientId`);
    clientSecret = m[1]!;
  }
  const issuer = e.issuer === undefined ? undefined : issuerOf(name, e.issuer);
  return {
    scopes: scopes as string[],
    ...(e.clientId ? { clientId: e.clientId as string } : {}),
    ...(clientSecret ? { clientSecret } : {}),
    ...(issuer ? { issuer } : {}),
  };
}

/** RFC 8414 section 2: an issuer is an https URL with no query or fragment (http only on loopback, as for every OAuth URL). */
function issuerOf(name: string, raw: unknown): string {
  const wrong = bad(`${name}.issuer must be the authorization server's issuer: an https URL with no query or fragment`);
  if (typeof raw !== "string" || !URL.canParse(raw)) throw wrong;
  const url = new URL(raw);
  if (!secureOrLoopback(url) || url.search || url.hash || url.username || url.password) throw wrong;
  return raw;
}

/** The names of the secrets a server's headers use. */
export function secretNames(server: ServerConfig): string[] {
  return [...new Set(Object.values(server.headers).flatMap((v) => [...v.matchAll(SECRET_RE)].map((m) => m[1]!)))];
}

/** Headers with `${NAME}` replaced from `lookup`; a missing secret is a config error naming it. */
export function resolveHeaders(
  serverName: string,
  server: ServerConfig,
  lookup: (name: string) => unknown,
): { headers: Record<string, string>; secrets: string[] } {
  const secrets: string[] = [];
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(server.headers)) {
    headers[k] = v.replace(SECRET_RE, (_, name: string) => {
      const value = lookup(name);
      if (typeof value !== "string" || !value)
        throw new ToolsearchError(
          "internal",
          `SERVERS: ${serverName}.headers.${k} uses the secret ${name}, which is not set (wrangler secret put ${name})`,
        );
      secrets.push(value);
      return value;
    });
  }
  return { headers, secrets };
}

/** `text` with every secret value replaced: a server echoing a header must not leak it. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4) out = out.split(s).join("[redacted]");
  return out;
}
