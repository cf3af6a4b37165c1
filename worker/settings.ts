// Deployment settings from the Worker's vars (wrangler.toml): the pinned catalog, session TTL, the
// defer and access policy, the agent endpoint's upstreams (OPENAI_API_KEY and ANTHROPIC_API_KEY are
// secrets), edge execution (SERVERS, result cap, audit arguments, edge-call rounds, connect links'
// lifetime), code mode's limits (CODE_*), quotas (QUOTAS: quotas.ts), and the perimeter: the
// deployment's hostnames and the browser origins /v1 and /mcp allow. Checked whole once per isolate
// (its first request is its start): POLICY, QUOTAS and SERVERS' keys each by one strict schema
// (config/), so a misspelled key is named, not ignored. Any bad setting is a config_invalid error
// (503) for every request until it is fixed, except a malformed SERVERS value, which breaks only
// what needs it (edge execution, /mcp) and is reported by configReport (the log, GET /healthz).

import { ToolsearchError } from "./core/errors.ts";
import type { PolicyConfig } from "./core/policy.ts";
import { configInvalid } from "./config/check.ts";
import { readPolicy } from "./config/policy.ts";
import { checkServerKeys } from "./config/servers.ts";
import { parseServers, type Servers } from "./core/servers.ts";
import type { Catalog } from "./core/catalog.ts";
import type { UpstreamConfig } from "./chat/model-client.ts";
import { parseQuotas, type Quotas } from "./quotas.ts";

export interface Settings {
  catalogFile: string;
  ttlMs: number;
  policy: PolicyConfig;
  /** the agent endpoint: upstream model server and loop bound */
  upstream: UpstreamConfig;
  /** /v1/messages: the Anthropic-compatible Messages upstream (ANTHROPIC_BASE_URL; its key the secret ANTHROPIC_API_KEY), or null */
  anthropic: UpstreamConfig | null;
  maxHops: number;
  /** edge execution: how catalog servers are reached (empty when SERVERS is malformed), and the limits of a call */
  servers: Servers;
  /** why SERVERS could not be read, or null: edge execution and /mcp refuse to work while it is set */
  serversProblem: string | null;
  resultMaxBytes: number;
  maxEdgeRounds: number;
  /** /mcp and /v1: browser origins allowed besides the Worker's own and loopback ones ("*": any) */
  mcpAllowedOrigins: ReadonlySet<string> | "*";
  /** the deployment's hostnames (lower case), served besides loopback names (worker/perimeter.ts) */
  allowedHosts: ReadonlySet<string>;
  /** AUDIT_ARGUMENTS=store keeps argument values in audit rows (default: digest and size only) */
  storeArguments: boolean;
  /** per-tenant quotas (QUOTAS: worker/quotas.ts) */
  quotas: Quotas;
  /** how long a connect link (per-user OAuth servers) stays valid, unused */
  connectLinkTtlMs: number;
  /** how long a request for a yes stays open (APPROVAL_TTL_SECONDS) */
  approvalTtlMs: number;
  /** code mode: a program's limits (CODE_*: worker/code/) */
  code: CodeLimits;
  /** a Worker secret by name (`${NAME}` in a SERVERS header); undefined when it is not set */
  secret(name: string): string | undefined;
}

export interface CodeLimits {
  steps: number;
  /** ms of interpreter time a run may take (CODE_CPU_MS; see code/sandbox.ts) */
  cpuMs: number;
  memoryBytes: number;
  wallMs: number;
  maxCalls: number;
  parallel: number;
}

function positive(env: Env, name: keyof Env, fallback: number, min = 1): number {
  const raw = env[name];
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < min) throw configInvalid(`${String(name)} must be an integer >= ${min}, got "${String(raw)}"`);
  return n;
}

/** MCP_ALLOWED_ORIGINS: "*", or comma-separated origins (scheme://host[:port]), each checked. */
function allowedOrigins(raw: string): ReadonlySet<string> | "*" {
  if (raw.trim() === "*") return "*";
  const list = raw
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  for (const o of list) {
    let ok = false;
    try {
      ok = new URL(o).origin === o;
    } catch {
      // not a URL: reported below
    }
    if (!ok) throw configInvalid(`MCP_ALLOWED_ORIGINS: ${JSON.stringify(o)} is not an origin (scheme://host[:port])`);
  }
  return new Set(list);
}

/** ALLOWED_HOSTS: comma-separated hostnames (no scheme, no port), each checked. */
function allowedHosts(raw: string): ReadonlySet<string> {
  const list = raw
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const bad = list.find((h) => !/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/.test(h));
  if (bad !== undefined) throw configInvalid(`ALLOWED_HOSTS: ${JSON.stringify(bad)} is not a hostname (no scheme or port)`);
  return new Set(list);
}

let cached: { env: Env; settings: Settings } | { env: Env; error: ToolsearchError } | undefined;

/** The settings, checked whole; a bad one throws config_invalid on every call (the same error, parsed once). */
export function settings(env: Env): Settings {
  if (cached?.env === env) {
    if ("error" in cached) throw cached.error;
    return cached.settings;
  }
  try {
    const s = readSettings(env);
    cached = { env, settings: s };
    return s;
  } catch (e) {
    if (e instanceof ToolsearchError && e.code === "config_invalid") cached = { env, error: e };
    throw e;
  }
}

function readSettings(env: Env): Settings {
  const ttl = Number(env.SESSION_TTL_SECONDS ?? 604800);
  if (!Number.isFinite(ttl) || ttl <= 0)
    throw configInvalid(`SESSION_TTL_SECONDS must be a positive number, got "${env.SESSION_TTL_SECONDS}"`);
  const policy: PolicyConfig = readPolicy(env.POLICY);
  const upstream: UpstreamConfig = {
    baseURL: String(env.OPENAI_BASE_URL ?? "https://api.openai.com/v1"),
    apiKey: String(env.OPENAI_API_KEY ?? ""),
    timeoutMs: positive(env, "UPSTREAM_TIMEOUT_MS", 120_000),
    maxRetries: positive(env, "UPSTREAM_MAX_RETRIES", 2, 0),
  };
  const anthropicURL = String(env.ANTHROPIC_BASE_URL ?? "");
  const anthropic: UpstreamConfig | null = anthropicURL
    ? { ...upstream, baseURL: anthropicURL, apiKey: String(Reflect.get(env, "ANTHROPIC_API_KEY") ?? "") }
    : null;
  const audit = String(env.AUDIT_ARGUMENTS ?? "digest");
  if (audit !== "digest" && audit !== "store") throw configInvalid(`AUDIT_ARGUMENTS must be "digest" or "store", got "${audit}"`);
  const s: Settings = {
    catalogFile: String(env.CATALOG),
    ttlMs: ttl * 1000,
    policy,
    upstream,
    anthropic,
    maxHops: positive(env, "MAX_HOPS", 4, 0),
    ...readServers(env.SERVERS),
    resultMaxBytes: positive(env, "CALL_RESULT_MAX_BYTES", 262_144, 1024),
    maxEdgeRounds: positive(env, "MAX_EDGE_ROUNDS", 8, 1),
    storeArguments: audit === "store",
    mcpAllowedOrigins: allowedOrigins(String(env.MCP_ALLOWED_ORIGINS ?? "")),
    allowedHosts: allowedHosts(String(env.ALLOWED_HOSTS ?? "")),
    connectLinkTtlMs: positive(env, "CONNECT_LINK_TTL_SECONDS", 600) * 1000,
    approvalTtlMs: positive(env, "APPROVAL_TTL_SECONDS", 600) * 1000,
    code: {
      steps: positive(env, "CODE_CPU_STEPS", 10_000),
      cpuMs: positive(env, "CODE_CPU_MS", 1000),
      memoryBytes: positive(env, "CODE_MEMORY_MB", 16, 2) * 1024 * 1024,
      wallMs: positive(env, "CODE_WALL_MS", 30_000, 100),
      maxCalls: positive(env, "CODE_MAX_CALLS", 200),
      parallel: positive(env, "CODE_PARALLEL", 4),
    },
    quotas: parseQuotas(env.QUOTAS),
    secret: (name) => {
      const value: unknown = Reflect.get(env, name);
      return typeof value === "string" && value ? value : undefined;
    },
  };
  return s;
}

function readServers(raw: unknown): { servers: Servers; serversProblem: string | null } {
  checkServerKeys(raw);
  try {
    return { servers: parseServers(raw), serversProblem: null };
  } catch (e) {
    if (!(e instanceof ToolsearchError)) throw e;
    return { servers: new Map(), serversProblem: `${e.message}; edge execution and /mcp are off until it is fixed` };
  }
}

/** SERVERS for what cannot work without it (the MCP gateway, edge execution): its problem is a 500 naming it. */
export function requireServers(s: Settings): Servers {
  if (s.serversProblem) throw new ToolsearchError("internal", s.serversProblem);
  return s.servers;
}

/**
 * What is wrong with the deployment's settings for this catalog, one sentence each: `problems`
 * break routes (a malformed SERVERS), `warnings` break nothing yet (a SERVERS entry that names no
 * server of the catalog: misspelled, or meant for another catalog). GET /healthz and the log show both.
 */
export function configReport(s: Settings, catalog: Pick<Catalog, "servers">): { problems: string[]; warnings: string[] } {
  const known = catalog.servers.map((c) => c.name);
  const strangers = [...s.servers.keys()].filter((name) => !known.includes(name));
  return {
    problems: s.serversProblem ? [s.serversProblem] : [],
    warnings: strangers.map(
      (name) => `SERVERS: ${name} is not a server of the pinned catalog (its servers: ${known.join(", ")}); no call reaches it`,
    ),
  };
}

const logged = new WeakMap<Settings, string>();

/** Log the config report once per isolate and catalog: the first request that loads the catalog is this isolate's start. */
export function logConfigReport(s: Settings, catalog: Pick<Catalog, "servers" | "hash">): void {
  if (logged.get(s) === catalog.hash) return;
  logged.set(s, catalog.hash);
  const { problems, warnings } = configReport(s, catalog);
  for (const p of problems) console.error(`config: ${p}`);
  for (const w of warnings) console.warn(`config: ${w}`);
}
