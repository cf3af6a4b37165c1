// Making sessions: ids (random, or derived from a key so every request with it reaches the same
// object), what a new session freezes (sessionInit: the tenant's access view, policy, listing, the
// gateway's reachable servers), creation, and the catalog a live session started with.

import { accessFor, accessView } from "../core/access.ts";
import type { Activation } from "../core/chat.ts";
import { principalScope } from "../auth.ts";
import { sha256Hex } from "../core/canonical.ts";
import { ToolsearchError } from "../core/errors.ts";
import { freezeSession, type SessionRequest } from "../core/frozen.ts";
import { resolveProfile } from "../core/policy.ts";
import { viaCallTool, viaGatewayList } from "../core/listing.ts";
import { gatewayOffer, mcpInstructions } from "../core/mcp-tools.ts";
import { loadCatalog, type LoadedCatalog } from "../catalogs.ts";
import { requireServers, settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import { SessionClient } from "./client.ts";
import { sessionIdOf } from "./ids.ts";
import type { SessionInit, SessionState } from "./state.ts";
import { codeEngine } from "../code/engine.ts";

/**
 * `execution`: who runs catalog tools on the chat endpoint. `mcp`: a session of the MCP gateway,
 * with the protocol version its initialize negotiated; it sees only tools of servers it can reach.
 */
export type CreateRequest = SessionRequest & {
  activation: Activation;
  execution?: "client" | "edge";
  code?: "on" | "off";
  mcp?: { protocolVersion: string; client?: string; elicitation?: true };
};

const idSecret = (c: Pick<RouteContext, "env">) => settings(c.env).secret("SESSION_ID_SECRET");

/** 128 random bits and the tenant's tag (ids.ts), base64url: unguessable and safe in a URL path. */
function newSessionId(c: RouteContext): Promise<string> {
  return sessionIdOf(idSecret(c), principalScope(c), crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * The id a key names (a prompt_cache_key, a conversation's beginning): 128 bits of
 * sha256(tenant, key) and the tenant's tag, so every request with that key reaches the same
 * object, with no lookup.
 */
export async function keyedSessionId(
  c: Pick<RouteContext, "tenant" | "env"> & Partial<Pick<RouteContext, "user">>,
  key: string,
): Promise<string> {
  const hex = await sha256Hex(`${principalScope(c)}\u0000${key}`);
  return sessionIdOf(
    idSecret(c),
    principalScope(c),
    Uint8Array.from(hex.slice(0, 32).match(/../g)!, (h) => parseInt(h, 16)),
  );
}

/** The catalog a session started with; 409 if that catalog is no longer deployed. */
export async function sessionCatalog(
  c: RouteContext,
  state: Pick<SessionState, "id" | "catalogFile" | "catalogHash">,
): Promise<LoadedCatalog> {
  const pinned = settings(c.env).catalogFile;
  let cat: LoadedCatalog;
  try {
    cat = await loadCatalog(state.catalogFile);
  } catch (e) {
    if (e instanceof ToolsearchError && e.code === "catalog_missing" && state.catalogFile !== pinned) {
      throw new ToolsearchError(
        "catalog_mismatch",
        `session ${state.id} was created on catalog ${state.catalogFile}, which is no longer deployed (this deployment pins ${pinned}); start a new session`,
      );
    }
    throw e;
  }
  if (cat.catalog.hash !== state.catalogHash) {
    throw new ToolsearchError(
      "catalog_mismatch",
      `session ${state.id} was created on catalog hash ${state.catalogHash.slice(0, 12)}, but ${state.catalogFile} now holds ${cat.catalog.hash.slice(0, 12)}; start a new session`,
    );
  }
  c.setCatalogLabel(cat.label);
  return cat;
}

/**
 * What a new session on the pinned catalog stores: its frozen fields, decided now. The tenant's
 * access view is frozen like the prompt: denied tools are not in the deferred section.
 */
export async function sessionInit(c: RouteContext, req: CreateRequest, given?: string): Promise<{ init: SessionInit; cat: LoadedCatalog }> {
  const id = given ?? (await newSessionId(c));
  const config = settings(c.env);
  const { catalogFile, policy, ttlMs, storeArguments } = config;
  const cat = await loadCatalog(catalogFile);
  const access = accessFor(policy.access, c.tenant);
  const view = accessView(cat.tools, access);
  // a profile's tool the tenant may not use is refused as such, not as missing from the catalog
  const frozenProfile = resolveProfile(policy, req.profile);
  const refused = [...(frozenProfile.coreTools ?? []), ...(frozenProfile.tools ?? [])].filter((n) => view.denied.has(n));
  if (refused.length)
    throw new ToolsearchError(
      "forbidden",
      `profile "${req.profile}" names tools not available to this tenant (access policy): ${refused.join(", ")}`,
    );
  let visible = view.candidates ? cat.catalog.tools.filter((t) => view.candidates!.has(t.name)) : cat.catalog.tools;
  // the MCP gateway offers only what it can run: tools of servers in SERVERS
  const gateway = req.mcp && gatewayOffer(visible, requireServers(config));
  if (gateway) visible = gateway.offered;
  const frozen = freezeSession({ ...cat.catalog, tools: visible }, policy, req);
  // the section says how a loaded tool is run: with proxy activation (the gateway's stable surface
  // too) the tools list never changes, so through callTool; the gateway's dynamic form lists it once
  // the client re-lists, under the client's prefix
  if (req.activation === "proxy") frozen.systemSection = viaCallTool(frozen.systemSection);
  else if (req.mcp) frozen.systemSection = viaGatewayList(frozen.systemSection);
  const mcp = req.mcp &&
    gateway && {
      protocolVersion: req.mcp.protocolVersion,
      ...(req.mcp.client ? { client: req.mcp.client } : {}),
      ...(req.mcp.elicitation ? { elicitation: true as const } : {}),
      servers: gateway.servers,
      instructions: mcpInstructions({ ...frozen, activation: req.activation }, gateway.counts, gateway.unreachable),
    };
  const { model, profile, activation, deferral, contextWindow } = req;
  const init: SessionInit = {
    id,
    catalogFile,
    catalogHash: cat.catalog.hash,
    model,
    profile,
    ttlMs,
    activation,
    deferral,
    contextWindow,
    tenant: c.tenant,
    ...(c.user ? { user: c.user } : {}),
    access,
    ...(frozenProfile.tools ? { whitelist: [...frozenProfile.tools] } : {}),
    execution: req.execution ?? "client",
    storeArguments,
    // runCode is offered only where programs can run (code/engine.ts; /healthz says why not)
    // asked for, or the profile's default (POLICY.profiles.<name>.code)
    ...((req.code ?? frozenProfile.code) === "on" && (await codeEngine()).available ? { code: "on" as const } : {}),
    ...frozen,
    ...(mcp ? { mcp, execution: "edge" as const } : {}),
  };
  return { init, cat };
}

/** A new session with a random id (POST /v1/sessions). */
export async function createSession(c: RouteContext, req: CreateRequest): Promise<{ state: SessionState; cat: LoadedCatalog }> {
  const { init, cat } = await sessionInit(c, req);
  const state = await SessionClient.of(c, init.id).create(init);
  if (!state) throw new ToolsearchError("conflict", "session id collision; retry");
  return { state, cat };
}
