// /v1/sessions: create, read, prompt, toolSearch, delete. A session lives in its own Durable
// Object and keeps the catalog it started with; toolSearch ranks here (the index is cached per
// isolate) and the session object decides atomically which names are new.

import { ToolsearchError } from "../core/errors.ts";
import { freezeSession, sessionPromptParts, type SessionRequest } from "../core/frozen.ts";
import type { Deferral } from "../core/policy.ts";
import { composePrompt, type PromptFormat } from "../core/prompt.ts";
import type { Activation } from "../core/chat.ts";
import { answerToolSearch } from "../core/tool-search.ts";
import { loadCatalog, type LoadedCatalog } from "../catalogs.ts";
import { settings } from "../config.ts";
import { json, readJson, route, type RouteContext } from "../http.ts";
import type { SessionDO, SessionState } from "../session.ts";

const ID_RE = /^ses_[A-Za-z0-9_-]{32}$/;

/** 192 random bits, base64url: unguessable and safe in a URL path. */
function newSessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `ses_${btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")}`;
}

export function stub(env: Env, id: string): DurableObjectStub<SessionDO> {
  if (!ID_RE.test(id)) throw new ToolsearchError("not_found", `session ${id.slice(0, 80)} does not exist`);
  return env.SESSIONS.getByName(id);
}

async function requireSession(c: RouteContext): Promise<{ state: SessionState; stub: DurableObjectStub<SessionDO> }> {
  const s = stub(c.env, c.params.id!);
  const state = (await s.get()) as SessionState | null;
  if (!state) {
    frozenCache.delete(c.params.id!);
    throw new ToolsearchError("not_found", `session ${c.params.id} does not exist`);
  }
  remember(state);
  return { state, stub: s };
}

// A session's frozen fields never change, so an isolate may keep them: toolSearch then needs one
// Durable Object call (record the activation) instead of two. Activations are never cached.
type Frozen = Omit<SessionState, "activations" | "lastUsedAt">;
const frozenCache = new Map<string, Frozen>();
const FROZEN_CACHE_MAX = 10_000;

export function remember(state: SessionState): Frozen {
  const { activations: _a, lastUsedAt: _l, ...frozen } = state;
  if (frozenCache.size >= FROZEN_CACHE_MAX) frozenCache.delete(frozenCache.keys().next().value!);
  frozenCache.set(state.id, frozen);
  return frozen;
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

export function catalogRef(cat: LoadedCatalog) {
  return { name: cat.catalog.name, version: cat.catalog.version, hash: cat.catalog.hash };
}

function parseFormat(url: URL): PromptFormat {
  const f = url.searchParams.get("format") ?? "openai";
  if (f !== "openai" && f !== "anthropic") throw new ToolsearchError("bad_request", `format must be "openai" or "anthropic", got "${f.slice(0, 40)}"`);
  return f;
}

function promptFor(cat: LoadedCatalog, state: Pick<SessionState, "mode" | "activation" | "systemSection" | "coreTools" | "activations" | "profile">, format: PromptFormat) {
  const scope = `${cat.catalog.hash}\u0000${state.profile}\u0000${state.mode}\u0000${state.activation}`;
  return composePrompt(sessionPromptParts(cat.byName, state), format, scope);
}

export type CreateRequest = SessionRequest & { activation: Activation };

function parseCreate(body: Record<string, unknown>): CreateRequest {
  const { model, profile = "default", deferral = "auto", contextWindow, activation = "inject", ...rest } = body;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new ToolsearchError("bad_request", `unknown field "${unknown[0]}"`);
  if (typeof model !== "string" || !model.trim() || model.length > 200) throw new ToolsearchError("bad_request", "model: required, a string of 1-200 characters");
  if (typeof profile !== "string" || !/^[A-Za-z0-9_.-]{1,64}$/.test(profile)) throw new ToolsearchError("bad_request", "profile: must be a profile name (letters, digits, _ . -)");
  if (deferral !== "auto" && deferral !== "on" && deferral !== "off") throw new ToolsearchError("bad_request", 'deferral: must be "auto", "on" or "off"');
  if (contextWindow !== undefined && (!Number.isInteger(contextWindow) || (contextWindow as number) < 1000 || (contextWindow as number) > 100_000_000)) {
    throw new ToolsearchError("bad_request", "contextWindow: must be an integer from 1000 to 100000000");
  }
  if (activation !== "inject" && activation !== "proxy") throw new ToolsearchError("bad_request", 'activation: must be "inject" or "proxy"');
  return { model, profile, deferral: deferral as Deferral, contextWindow: contextWindow as number | undefined, activation };
}

/** A new session on the pinned catalog (also used by the chat endpoint for header-less requests). */
export async function createSession(c: RouteContext, req: CreateRequest): Promise<{ state: SessionState; cat: LoadedCatalog }> {
  const { catalogFile, policy, ttlMs } = settings(c.env);
  const cat = await loadCatalog(c.env.ASSETS, catalogFile);
  const frozen = freezeSession(cat.catalog, policy, req);
  const id = newSessionId();
  const state = await stub(c.env, id).create({ id, catalogFile, catalogHash: cat.catalog.hash, model: req.model, profile: req.profile, ttlMs, activation: req.activation, ...frozen });
  if (!state) throw new ToolsearchError("conflict", "session id collision; retry");
  remember(state);
  return { state, cat };
}

async function create(c: RouteContext): Promise<Response> {
  const { state, cat } = await createSession(c, parseCreate(await readJson(c.request)));
  const prompt = await promptFor(cat, state, "openai");
  const { id, mode, reason, activation } = state;
  return json({ id, mode, reason, activation, catalog: catalogRef(cat), prompt }, 201, { location: `/v1/sessions/${id}` });
}

async function read(c: RouteContext): Promise<Response> {
  const { state } = await requireSession(c);
  const cat = await sessionCatalog(c, state);
  const { id, mode, reason, activation, model, profile, activations, createdAt } = state;
  return json({ id, mode, reason, activation, model, profile, catalog: catalogRef(cat), activations, createdAt: new Date(createdAt).toISOString() });
}

async function prompt(c: RouteContext): Promise<Response> {
  const format = parseFormat(c.url);
  const { state } = await requireSession(c);
  const cat = await sessionCatalog(c, state);
  return json(await promptFor(cat, state, format));
}

async function toolSearch(c: RouteContext): Promise<Response> {
  const body = await readJson(c.request);
  const { query, limit, ...rest } = body;
  if (Object.keys(rest).length) throw new ToolsearchError("bad_request", `unknown field "${Object.keys(rest)[0]}"`);
  const cached = frozenCache.get(c.params.id!);
  const { state, stub: s } = cached ? { state: cached, stub: stub(c.env, cached.id) } : await requireSession(c);
  const cat = await sessionCatalog(c, state);
  // bad queries are answers for the model (HTTP 200 with the error in `result`), not HTTP errors
  const answer = await answerToolSearch(cat, state, query, limit, (names, q) => s.activate(names, q));
  if (!answer) {
    frozenCache.delete(state.id);
    throw new ToolsearchError("not_found", `session ${state.id} does not exist`);
  }
  const { result, loaded, alreadyLoaded, matches } = answer;
  return json({ result, loaded, alreadyLoaded, matches });
}

async function remove(c: RouteContext): Promise<Response> {
  frozenCache.delete(c.params.id!);
  const existed = await stub(c.env, c.params.id!).remove();
  if (!existed) throw new ToolsearchError("not_found", `session ${c.params.id} does not exist`);
  return new Response(null, { status: 204 });
}

export const sessionRoutes = [
  route("POST", "/v1/sessions", create),
  route("GET", "/v1/sessions/:id", read),
  route("DELETE", "/v1/sessions/:id", remove),
  route("GET", "/v1/sessions/:id/prompt", prompt),
  route("POST", "/v1/sessions/:id/tool-search", toolSearch),
];
