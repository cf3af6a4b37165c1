// /v1/sessions: create, read, prompt, toolSearch, delete. A session lives in its own Durable
// Object (under its tenant, see worker/sessions.ts) and keeps the catalog it started with;
// toolSearch ranks here (the index is cached per isolate) and the session object decides
// atomically which names are new.

import { ToolsearchError } from "../core/errors.ts";
import { sessionPromptParts } from "../core/frozen.ts";
import { composePrompt, type PromptFormat } from "../core/prompt.ts";
import { answerToolSearch } from "../core/tool-search.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import { json, readJson, route, type RouteContext } from "../http.ts";
import type { SessionState } from "../session.ts";
import { cachedFrozen, createSession, forget, notFound, requireSession, sessionCatalog, sessionStub, viewOf } from "../sessions.ts";
import { parseCreateBody, parseSearchBody } from "../bodies.ts";

export function catalogRef(cat: LoadedCatalog) {
  return { name: cat.catalog.name, version: cat.catalog.version, hash: cat.catalog.hash };
}

function parseFormat(url: URL): PromptFormat {
  const f = url.searchParams.get("format") ?? "openai";
  if (f !== "openai" && f !== "anthropic") throw new ToolsearchError("bad_request", `format: must be "openai" or "anthropic", got "${f.slice(0, 40)}"`);
  return f;
}

function promptFor(cat: LoadedCatalog, state: Pick<SessionState, "mode" | "activation" | "systemSection" | "coreTools" | "activations" | "profile">, format: PromptFormat) {
  const scope = `${cat.catalog.hash}\u0000${state.profile}\u0000${state.mode}\u0000${state.activation}`;
  return composePrompt(sessionPromptParts(cat.byName, state), format, scope);
}

async function create(c: RouteContext): Promise<Response> {
  const { state, cat } = await createSession(c, parseCreateBody(await readJson(c.request)));
  const prompt = await promptFor(cat, state, "openai");
  const { id, mode, reason, activation, execution } = state;
  return json({ id, mode, reason, activation, execution, catalog: catalogRef(cat), prompt }, 201, { location: `/v1/sessions/${id}` });
}

async function read(c: RouteContext): Promise<Response> {
  const { state } = await requireSession(c, c.params.id!);
  const cat = await sessionCatalog(c, state);
  const { id, mode, reason, activation, model, profile, activations, createdAt } = state;
  const execution = state.execution ?? "client";
  return json({ id, mode, reason, activation, execution, model, profile, catalog: catalogRef(cat), activations, createdAt: new Date(createdAt).toISOString() });
}

async function prompt(c: RouteContext): Promise<Response> {
  const format = parseFormat(c.url);
  const { state } = await requireSession(c, c.params.id!);
  const cat = await sessionCatalog(c, state);
  return json(await promptFor(cat, state, format));
}

async function toolSearch(c: RouteContext): Promise<Response> {
  const { query, limit } = parseSearchBody(await readJson(c.request));
  const id = c.params.id!;
  const cached = cachedFrozen(c, id);
  const { state, stub } = cached ? { state: cached, stub: sessionStub(c, id) } : await requireSession(c, id);
  const cat = await sessionCatalog(c, state);
  const answer = await answerToolSearch(cat, state, query, limit, (names, q, audit) => stub.activate(names, q, audit), viewOf(cat, state), "rest");
  if (!answer) {
    forget(c, id);
    throw notFound(id);
  }
  const { result, loaded, alreadyLoaded, matches } = answer;
  return json({ result, loaded, alreadyLoaded, matches });
}

async function remove(c: RouteContext): Promise<Response> {
  const id = c.params.id!;
  forget(c, id);
  const existed = await sessionStub(c, id).remove();
  if (!existed) throw notFound(id);
  return new Response(null, { status: 204 });
}

export const sessionRoutes = [
  route("POST", "/v1/sessions", create),
  route("GET", "/v1/sessions/:id", read),
  route("DELETE", "/v1/sessions/:id", remove),
  route("GET", "/v1/sessions/:id/prompt", prompt),
  route("POST", "/v1/sessions/:id/tool-search", toolSearch),
];
