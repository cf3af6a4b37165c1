// /v1/sessions: create, read, prompt, history, toolSearch, delete. A session lives in its own Durable
// Object (under its tenant, see session/client.ts) and keeps the catalog it started with;
// toolSearch ranks here (the index is cached per isolate) and the session object decides
// atomically which names are new.

import { ToolsearchError } from "../core/errors.ts";
import { sessionPromptParts } from "../core/frozen.ts";
import { composePrompt, type PromptFormat } from "../core/prompt.ts";
import { answerToolSearch } from "../core/tool-search.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import { json, param, readJson, route, type RouteContext } from "../http.ts";
import { sessionAccess } from "../core/access.ts";
import { SessionClient } from "../session/client.ts";
import { createSession, sessionCatalog } from "../session/create.ts";
import type { SessionState } from "../session/state.ts";
import { parseCreateBody, parseSearchBody } from "../wire/requests.ts";
import type { CreatedSession, HistoryAnswer, PromptAnswer, SearchAnswer, SessionInfo } from "../wire/answers.ts";

export function catalogRef(cat: LoadedCatalog) {
  return { name: cat.catalog.name, version: cat.catalog.version, hash: cat.catalog.hash };
}

function parseFormat(url: URL): PromptFormat {
  const f = url.searchParams.get("format") ?? "openai";
  if (f !== "openai" && f !== "anthropic")
    throw new ToolsearchError("bad_request", `format: must be "openai" or "anthropic", got "${f.slice(0, 40)}"`);
  return f;
}

function promptFor(
  cat: LoadedCatalog,
  state: Pick<SessionState, "mode" | "activation" | "systemSection" | "coreTools" | "activations" | "profile" | "code">,
  format: PromptFormat,
) {
  const scope = `${cat.catalog.hash}\u0000${state.profile}\u0000${state.mode}\u0000${state.activation}`;
  // tools a chat client declared and activated live in its requests, not in the catalog
  const activations = state.activations.filter((n) => cat.byName.has(n));
  return composePrompt(sessionPromptParts(cat.byName, { ...state, activations }), format, scope);
}

async function create(c: RouteContext): Promise<Response> {
  const { state, cat } = await createSession(c, parseCreateBody(await readJson(c.request)));
  const prompt = await promptFor(cat, state, "openai");
  const { id, mode, reason, activation } = state;
  const answer = {
    id,
    mode,
    reason,
    listing: state.listing ?? null,
    activation,
    execution: state.execution ?? "client",
    catalog: catalogRef(cat),
    prompt,
  };
  return json(answer satisfies CreatedSession, 201, { location: `/v1/sessions/${id}` });
}

async function read(c: RouteContext): Promise<Response> {
  const session = SessionClient.of(c, param(c, "id"));
  const [state, workerCalls] = await Promise.all([session.state(), session.workerCalls()]);
  const cat = await sessionCatalog(c, state);
  const { id, mode, reason, activation, model, profile, activations, createdAt } = state;
  const ct = state.clientTools;
  const clientTools = ct ? { hash: ct.hash, kept: ct.kept, deferred: ct.deferred, core: ct.core, reason: ct.reason } : null;
  const execution = state.execution ?? "client";
  return json({
    id,
    mode,
    reason,
    listing: state.listing ?? null,
    activation,
    execution,
    model,
    profile,
    catalog: catalogRef(cat),
    activations,
    clientTools,
    workerCalls,
    createdAt: new Date(createdAt).toISOString(),
  } satisfies SessionInfo);
}

async function prompt(c: RouteContext): Promise<Response> {
  const format = parseFormat(c.url);
  const state = await SessionClient.of(c, param(c, "id")).state();
  const cat = await sessionCatalog(c, state);
  return json((await promptFor(cat, state, format)) satisfies PromptAnswer);
}

async function toolSearch(c: RouteContext): Promise<Response> {
  const { query, limit } = parseSearchBody(await readJson(c.request));
  const session = SessionClient.of(c, param(c, "id"));
  const state = await session.frozen();
  const cat = await sessionCatalog(c, state);
  const activate = (names: string[], q: string, audit = {}) => session.activate(names, q, audit);
  const answer = await answerToolSearch(cat, state, query, limit, activate, sessionAccess(cat.tools, state), "rest");
  const { result, loaded, alreadyLoaded, matches } = answer;
  return json({ result, loaded, alreadyLoaded, matches } satisfies SearchAnswer);
}

/** GET /v1/sessions/:id/history: activations, searches and splices, read-only (times as ISO strings). */
async function history(c: RouteContext): Promise<Response> {
  const id = param(c, "id");
  const h = await SessionClient.of(c, id).history();
  const iso = (at: number) => new Date(at).toISOString();
  return json({
    id,
    activations: h.activations.map((a) => ({ name: a.name, at: iso(a.at) })),
    searches: h.searches.map((e) => ({ ...e, at: iso(e.at) })),
    splices: h.splices,
  } satisfies HistoryAnswer);
}

async function remove(c: RouteContext): Promise<Response> {
  await SessionClient.of(c, param(c, "id")).remove();
  return new Response(null, { status: 204 });
}

export const sessionRoutes = [
  route("POST", "/v1/sessions", create),
  route("GET", "/v1/sessions/:id", read),
  route("DELETE", "/v1/sessions/:id", remove),
  route("GET", "/v1/sessions/:id/prompt", prompt),
  route("GET", "/v1/sessions/:id/history", history),
  route("POST", "/v1/sessions/:id/tool-search", toolSearch),
];
