// Upstream resources and prompts for a gateway session, under the same rules and audit as its
// tools. Only the session's servers serve (mcp.servers: in SERVERS when it started), and of those
// only the ones the rules allow now (core/gate.ts serverGate, R2-L7: a server with a denied tool
// serves only where `allow` names the server); a session that is not the gateway's serves nothing.
// Lists gather every serving server's items under server-prefixed names (one page: the servers'
// pages are walked in mcp-resources.ts). Reading a URI is allowed only when the session has seen
// it: in a tool result of a server (recorded by note(), in the session's SQLite) or in a server's
// resources/list; it goes to the server that returned it. Anything else is "not found", a closed
// server's URI or prompt "not available", and another session's records (another tenant's above
// all) are in another object. A URI not handed out lists the servers not listed in the last minute
// only (R2-L8: one read cannot fan out into a list per server each time; a URI a server added
// since is readable after the client's own resources/list). Each upstream request counts against
// the calling key's quota of upstream calls; a refusal is `rate_limited` (-32000). A read or
// prompt is read to the read limit (R2-M3) and refused over CALL_RESULT_MAX_BYTES. Each read and
// prompt fetched is an audit row (`resource`, `prompt`), each refusal a `denial` row with its reason.

import type { AuditInput, AuditOutcome } from "../core/audit.ts";
import { byteSize, type CallToolResult } from "../core/call-result.ts";
import { prefixItem, resourceUris, splitPrefixed, type GatewayResourceOp, type ResourceOutcome } from "../core/mcp-resources.ts";
import { redact } from "../core/servers.ts";
import type { Settings } from "../settings.ts";
import { RateLimited } from "../core/errors.ts";
import { credentialsFor, NeedsConnection, NeedsUser } from "./credentials.ts";
import { UpstreamFailure } from "./upstream-failure.ts";
import { requestRemote, UpstreamError } from "./mcp-resources.ts";
import type { CallContext, ExecutionPort } from "./execution.ts";

export const RESOURCE_LINKS_SCHEMA = `
  CREATE TABLE IF NOT EXISTS resource_links (uri TEXT NOT NULL, server TEXT NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (uri, server));`;

/** how long a server's resources/list stands for what it lists, for a read of a URI not handed out */
const LISTED_FOR_MS = 60_000;

/** The URIs a session has been handed, per server. */
export class ResourceLinks {
  private readonly sql: SqlStorage;
  /** when each server was last asked for resources/list (memory: an evicted object lists once more) */
  private readonly listedAt = new Map<string, number>();

  constructor(sql: SqlStorage) {
    this.sql = sql;
  }

  /** Record the URIs a result of `server` gives the client. */
  note(server: string, uris: readonly string[]): void {
    const now = Date.now();
    for (const uri of uris.slice(0, 1000))
      this.sql.exec("INSERT OR REPLACE INTO resource_links (uri, server, at) VALUES (?, ?, ?)", uri.slice(0, 4000), server, now);
  }

  /** Record the resource links and embedded resources of a tool result. */
  noteResult(server: string, result: CallToolResult): void {
    this.note(server, resourceUris(result));
  }

  /** `server` is being asked for its resources/list now. */
  listing(server: string): void {
    this.listedAt.set(server, Date.now());
  }

  /** Of `servers`, those not asked for their resources/list in the last minute. */
  stale(servers: readonly string[]): string[] {
    const now = Date.now();
    return servers.filter((s) => !(now - (this.listedAt.get(s) ?? -Infinity) < LISTED_FOR_MS));
  }

  /** The servers that handed out `uri`, the latest first. */
  servers(uri: string): string[] {
    return this.sql
      .exec<{ server: string }>("SELECT server FROM resource_links WHERE uri = ? ORDER BY at DESC", uri)
      .toArray()
      .map((r) => r.server);
  }
}

export type ResourcePort = Pick<ExecutionPort, "init" | "writeAudit" | "transaction" | "servers" | "accounts" | "upstream"> & {
  links: ResourceLinks;
  /** the servers that serve: the session's, less those the rules close (core/gate.ts serverGate) */
  serving: readonly string[];
  /** the session's servers that do not serve, with the reason (for the audit trail) */
  closed: ReadonlyMap<string, string>;
};

type Ask = (server: string, op: GatewayResourceOp) => Promise<Record<string, unknown>>;

/** One request to one of the session's servers, in its kept-alive session, with its credentials, counted. */
function asker(port: ResourcePort, cfg: Settings, context: CallContext): Ask {
  return async (name, op) => {
    const server = cfg.servers.get(name);
    if (!server) throw new UpstreamFailure("transport_error", `server ${name} has no SERVERS entry`);
    const creds = await credentialsFor(name, server, cfg, port.accounts, context.origin ?? "");
    await port.upstream(context);
    const before = port.servers.get(name);
    const { result, session } = await requestRemote(server, creds.headers, before, op, cfg.resultMaxBytes);
    port.transaction(() => port.servers.replace(name, before, session));
    return JSON.parse(redact(JSON.stringify(result), creds.secrets)) as Record<string, unknown>;
  };
}

const LIST_KEYS = { "resources/list": "resources", "resources/templates/list": "resourceTemplates", "prompts/list": "prompts" } as const;

/**
 * Every server's items of one list, prefixed (of `servers`: all that serve); a server without the
 * feature (or failing) adds none. The key's quota reached fails the list.
 */
async function gather(
  port: ResourcePort,
  ask: Ask,
  method: keyof typeof LIST_KEYS,
  servers = port.serving,
): Promise<Record<string, unknown>[]> {
  const key = LIST_KEYS[method];
  const lists = await Promise.all(
    servers.map(async (server) => {
      try {
        if (method === "resources/list") port.links.listing(server);
        const items = ((await ask(server, { method }))[key] ?? []) as Array<Record<string, unknown>>;
        if (method === "resources/list")
          port.transaction(() =>
            port.links.note(
              server,
              items.map((r) => String(r.uri)),
            ),
          );
        return items.map((item) => prefixItem(server, item));
      } catch (e) {
        if (e instanceof RateLimited) throw e;
        if (!(e instanceof UpstreamError && e.code === -32601)) console.warn(`${method} on ${server}: ${(e as Error).message}`);
        return [];
      }
    }),
  );
  return lists.flat();
}

type Audit = (e: Omit<AuditInput, "via" | "client">) => void;

/** A read's or a prompt's failure, for its row. */
function failureOutcome(e: unknown): AuditOutcome {
  if (e instanceof UpstreamError) return "tool_error";
  if (e instanceof UpstreamFailure && e.kind === "timeout") return "timeout";
  if (e instanceof NeedsConnection) return "needs_connection";
  return e instanceof NeedsUser ? "needs_user" : "transport_error";
}

/**
 * What `op` asks of the session's servers. The key's quota of upstream calls used up is a refusal
 * (-32000); a read refused while it listed the servers is audited without a server.
 */
export async function serveResources(
  port: ResourcePort,
  cfg: Settings,
  op: GatewayResourceOp,
  context: CallContext,
): Promise<ResourceOutcome> {
  const audit: Audit = (e) => port.transaction(() => port.writeAudit([{ ...e, via: context.via, client: context.client ?? null }]));
  try {
    return await serve(port, cfg, op, context, audit);
  } catch (e) {
    if (!(e instanceof RateLimited)) throw e;
    if (op.method === "resources/read" || op.method === "prompts/get") {
      const type = op.method === "resources/read" ? "resource" : "prompt";
      audit({ type, tool: (op.method === "resources/read" ? op.uri : op.name).slice(0, 500), outcome: "rate_limited", detail: e.message });
    }
    return { ok: false, code: "rate_limited", message: e.message, rpcCode: -32000 };
  }
}

async function serve(
  port: ResourcePort,
  cfg: Settings,
  op: GatewayResourceOp,
  context: CallContext,
  audit: Audit,
): Promise<ResourceOutcome> {
  const ask = asker(port, cfg, context);
  if (op.method in LIST_KEYS) {
    const method = op.method as keyof typeof LIST_KEYS;
    return { ok: true, result: { [LIST_KEYS[method]]: await gather(port, ask, method) } };
  }
  const servers = port.serving;
  let target: { server: string; op: GatewayResourceOp; what: string } | null = null;
  // a server the rules close that handed out the URI, or whose prompt this is
  let closedBy: string | undefined;
  if (op.method === "resources/read") {
    const seen = () => port.links.servers(op.uri).filter((s) => servers.includes(s));
    closedBy = port.links.servers(op.uri).find((s) => port.closed.has(s));
    // not handed out by a tool: readable if a server lists it (listing records it); each server is asked at most once a minute so
    if (!seen().length && !closedBy) await gather(port, ask, "resources/list", port.links.stale(servers));
    const server = seen()[0];
    if (server) target = { server, op, what: op.uri };
  } else if (op.method === "prompts/get") {
    const split = splitPrefixed(op.name, [...servers, ...port.closed.keys()]);
    if (split && servers.includes(split.server)) target = { server: split.server, op: { ...op, name: split.name }, what: op.name };
    else closedBy = split?.server;
  }
  const type = op.method === "resources/read" ? "resource" : "prompt";
  const what = op.method === "resources/read" ? op.uri : op.method === "prompts/get" ? op.name : "";
  if (!target) {
    const shown = what.slice(0, 200);
    const message = closedBy
      ? `${type === "resource" ? "Resource" : "Prompt"} ${shown} is not available in this session (access policy)`
      : type === "resource"
        ? `Resource not found: ${shown} (this gateway reads only URIs its servers' tool results or resources/list gave this session)`
        : `Unknown prompt: ${shown} (prompts/list names this gateway's prompts)`;
    const detail = closedBy ? `server ${closedBy} serves no resources or prompts here: ${port.closed.get(closedBy)}` : message;
    audit({ type: "denial", tool: what.slice(0, 500), ...(closedBy ? { server: closedBy } : {}), outcome: "denied", detail });
    return { ok: false, code: "not_found", message };
  }
  const started = Date.now();
  const row = (outcome: AuditOutcome, detail: string | null, resultBytes = 0) =>
    audit({ type, tool: target.what.slice(0, 500), server: target.server, outcome, durationMs: Date.now() - started, resultBytes, detail });
  try {
    // read to the read limit at most (mcp-resources.ts): past it the request failed, below
    const result = await ask(target.server, target.op);
    const bytes = byteSize(result);
    if (bytes > cfg.resultMaxBytes) {
      const message = `${target.what.slice(0, 200)} is ${bytes} bytes, over this gateway's limit of ${cfg.resultMaxBytes}`;
      row("tool_error", message, bytes);
      return { ok: false, code: "failed", message };
    }
    row("ok", null, bytes);
    return { ok: true, result };
  } catch (e) {
    if (e instanceof RateLimited) {
      row("rate_limited", e.message);
      return { ok: false, code: "rate_limited", message: e.message, rpcCode: -32000 };
    }
    const message = e instanceof NeedsConnection ? `connect your ${target.server} account first: ${e.link}` : (e as Error).message;
    row(failureOutcome(e), message.slice(0, 300));
    return {
      ok: false,
      code: "failed",
      message: `server ${target.server}: ${message}`,
      ...(e instanceof UpstreamError ? { rpcCode: e.code } : {}),
    };
  }
}
