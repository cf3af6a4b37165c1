// Reaching a tenant's sessions: ids, Durable Object stubs, the per-isolate cache of frozen fields,
// the catalog a session started with, and creation. A session's object is named `<tenant>/<id>`,
// so another tenant's id names an object that holds nothing: the same 404 as an unknown id.

import { accessFor, accessView, type AccessView } from "./core/access.ts";
import type { Activation } from "./core/chat.ts";
import { ToolsearchError } from "./core/errors.ts";
import { freezeSession, type SessionRequest } from "./core/frozen.ts";
import { loadCatalog, type LoadedCatalog } from "./catalogs.ts";
import { settings } from "./config.ts";
import type { RouteContext } from "./http.ts";
import type { SessionDO, SessionState } from "./session.ts";

export const SESSION_ID_RE = /^ses_[A-Za-z0-9_-]{32}$/;
export type SessionStub = DurableObjectStub<SessionDO>;
export type CreateRequest = SessionRequest & { activation: Activation; execution?: "client" | "edge" };

/** 192 random bits, base64url: unguessable and safe in a URL path. */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `ses_${btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")}`;
}

export function notFound(id: string): ToolsearchError {
  return new ToolsearchError("not_found", `session ${id.slice(0, 80)} does not exist`);
}

export function sessionStub(c: RouteContext, id: string): SessionStub {
  if (!SESSION_ID_RE.test(id)) throw notFound(id);
  return c.env.SESSIONS.getByName(`${c.tenant}/${id}`);
}

// A session's frozen fields never change, so an isolate may keep them: toolSearch then needs one
// Durable Object call (record the activation) instead of two. Activations are never cached.
type Frozen = Omit<SessionState, "activations" | "lastUsedAt">;
const frozenCache = new Map<string, Frozen>();
const FROZEN_CACHE_MAX = 10_000;

export function remember(c: RouteContext, state: SessionState): Frozen {
  const { activations: _a, lastUsedAt: _l, ...frozen } = state;
  if (frozenCache.size >= FROZEN_CACHE_MAX) frozenCache.delete(frozenCache.keys().next().value!);
  frozenCache.set(`${c.tenant}/${state.id}`, frozen);
  return frozen;
}

export function forget(c: RouteContext, id: string): void {
  frozenCache.delete(`${c.tenant}/${id}`);
}

export function cachedFrozen(c: RouteContext, id: string): Frozen | undefined {
  return frozenCache.get(`${c.tenant}/${id}`);
}

export async function requireSession(c: RouteContext, id: string): Promise<{ state: SessionState; stub: SessionStub }> {
  const s = sessionStub(c, id);
  const state = (await s.get()) as SessionState | null;
  if (!state) {
    forget(c, id);
    throw notFound(id);
  }
  remember(c, state);
  return { state, stub: s };
}

/** The catalog a session started with; 409 if that catalog is no longer deployed. */
export async function sessionCatalog(c: RouteContext, state: Pick<SessionState, "id" | "catalogFile" | "catalogHash">): Promise<LoadedCatalog> {
  const pinned = settings(c.env).catalogFile;
  let cat: LoadedCatalog;
  try {
    cat = await loadCatalog(c.env.ASSETS, state.catalogFile);
  } catch (e) {
    if (e instanceof ToolsearchError && e.code === "catalog_missing" && state.catalogFile !== pinned) {
      throw new ToolsearchError("catalog_mismatch", `session ${state.id} was created on catalog ${state.catalogFile}, which is no longer deployed (this deployment pins ${pinned}); start a new session`);
    }
    throw e;
  }
  if (cat.catalog.hash !== state.catalogHash) {
    throw new ToolsearchError("catalog_mismatch", `session ${state.id} was created on catalog hash ${state.catalogHash.slice(0, 12)}, but ${state.catalogFile} now holds ${cat.catalog.hash.slice(0, 12)}; start a new session`);
  }
  c.setCatalogLabel(cat.label);
  return cat;
}

/** What a session may see of its catalog (its tenant's access rules, frozen at creation). */
export function viewOf(cat: LoadedCatalog, state: Pick<SessionState, "access">): AccessView {
  return accessView(cat.tools, state.access);
}

/** A new session on the pinned catalog (POST /v1/sessions, and chat requests without a session). */
export async function createSession(c: RouteContext, req: CreateRequest): Promise<{ state: SessionState; cat: LoadedCatalog }> {
  const { catalogFile, policy, ttlMs, storeArguments } = settings(c.env);
  const cat = await loadCatalog(c.env.ASSETS, catalogFile);
  // the tenant's view is frozen like the prompt: denied tools are not in the deferred section
  const access = accessFor(policy.access, c.tenant);
  const view = accessView(cat.tools, access);
  const visible = view.candidates ? cat.catalog.tools.filter((t) => view.candidates!.has(t.name)) : cat.catalog.tools;
  const frozen = freezeSession({ ...cat.catalog, tools: visible }, policy, req);
  const id = newSessionId();
  const init = { id, catalogFile, catalogHash: cat.catalog.hash, model: req.model, profile: req.profile, ttlMs, activation: req.activation, tenant: c.tenant, access, execution: req.execution ?? "client", storeArguments, ...frozen };
  const state = await sessionStub(c, id).create(init);
  if (!state) throw new ToolsearchError("conflict", "session id collision; retry");
  remember(c, state);
  return { state, cat };
}
