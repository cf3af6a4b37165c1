// Which session a chat request belongs to, and the plan for the tools it declares. In this order:
// the x-toolsearch-session header (the session must exist); the body's `prompt_cache_key`, which
// names a session (created on first use); otherwise a conversation key derived from the request
// itself (model, profile, activation mode, the hash of the client's tools, the first
// system/developer and the first user message), and the app's end user (`user`,
// `safety_identifier`; the Messages API's metadata.user_id is in its own key), so each step of a conversation reaches the same
// Durable Object by name, with no lookup and no header: any OpenAI client works with its base URL
// alone. Two conversations that begin with the same bytes share a session, which is harmless:
// splices apply only where the history matches byte for byte, and activations only add tools.
// When the key names no user, a new session's principal takes the end user (R2-M5: chat and
// Responses `user`, else `safety_identifier`; Messages `metadata.user_id`; as USER_RE allows), so
// each end user's calls use their own upstream accounts; a session named by header (or a
// previous_response_id) that belongs to another end user than the request names is a 409.
// The client's tool set is planned once per session and tool set (core/client-tools.ts): when it
// changes in a named session, the plan (and so the deferred section) is made again, once.

import { USER_RE } from "../auth.ts";
import { canonicalJson } from "../core/canonical.ts";
import type { AgentSession, ChatMessage } from "../core/chat.ts";
import type { AccessView } from "../core/access.ts";
import { planClientTools, type ClientPlan, type ClientToolSet, type PlanContext } from "../core/client-tools.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { PolicyConfig } from "../core/policy.ts";
import type { Splice } from "../core/splice.ts";
import type { Activate } from "../core/tool-search.ts";
import type { ChatBody, ChatHeaders } from "../wire/chat.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import { SessionClient, notFound } from "../session/client.ts";
import { keyedSessionId, sessionCatalog, sessionInit } from "../session/create.ts";
import type { SessionInit, SessionState } from "../session/state.ts";

export const SESSION_HEADER = "x-toolsearch-session";

/** What a turn's session is chosen by: the model, a prompt_cache_key, and the conversation's messages. */
export type TurnBody = Pick<ChatBody, "model" | "prompt_cache_key"> & {
  messages: readonly ChatMessage[];
  /** a conversation key the surface derived itself (the Messages API's); never sent upstream */
  sessionKey?: string;
  /** the end user a surface names in a field of its own (the Messages API's metadata.user_id); never sent upstream */
  endUser?: string;
  /** the app's end user (chat, Responses): part of the derived session key */
  user?: unknown;
  safety_identifier?: unknown;
};

export interface ChatSession {
  state: SessionState;
  splices: Splice[];
  session: SessionClient;
  cat: LoadedCatalog;
  plan: ClientPlan;
  /** the plan was made again in this request: the client's tool set (or core names) changed */
  toolsChanged: boolean;
}

export function planContext(s: SessionInit, cat: LoadedCatalog, policy: PolicyConfig): PlanContext {
  const { model, profile, contextWindow } = s;
  return {
    policy,
    model,
    profile,
    deferral: s.deferral ?? "auto",
    contextWindow,
    catalogLoaded: s.coreTools,
    catalogSection: s.systemSection,
    catalogNames: cat.byName,
    proxy: s.activation === "proxy",
  };
}

/** What a conversation is: the same for every step and turn of it, different for another. */
function conversationKey(
  body: TurnBody,
  set: ClientToolSet,
  options: { profile: string; activation: string; listing?: string; execution: string; code?: "on" | "off" },
): string {
  const first = (...roles: ChatMessage["role"][]) => body.messages.find((m) => roles.includes(m.role))?.content ?? null;
  return canonicalJson({ model: body.model, ...options, tools: set.hash, system: first("system", "developer"), user: first("user") });
}

/**
 * The user of a new session's principal: the key's (or x-toolsearch-user's), else the end user the
 * request names, when it is a user name (USER_RE); "" when neither (no account can be connected).
 */
function principalUser(c: RouteContext, endUser: unknown): string {
  return c.user || (typeof endUser === "string" && USER_RE.test(endUser) ? endUser : "");
}

async function begin(c: RouteContext, body: TurnBody, headers: ChatHeaders, chain: string[], set: ClientToolSet, core: string[]) {
  // the app's end user (OpenAI's `user`/`safety_identifier`): two users of one app never share a
  // session, so neither its activations nor its kept-alive upstream MCP sessions (M9)
  const endUser = [body.user, body.safety_identifier].find((u) => typeof u === "string" && u);
  const user = principalUser(c, body.endUser ?? endUser);
  const named = headers[SESSION_HEADER];
  if (named) {
    const session = SessionClient.of(c, named);
    const begun = await session.beginChat(chain);
    if (!begun) throw notFound(named);
    const owner = begun.state.user ?? "";
    if (!c.user && user && owner && owner !== user)
      throw new ToolsearchError(
        "conflict",
        `${SESSION_HEADER}: session ${named.slice(0, 40)} belongs to another end user than this request names`,
      );
    return { ...begun, session };
  }
  const activation = headers["x-toolsearch-activation"] ?? "inject";
  const profile = headers["x-toolsearch-profile"] ?? "default";
  const listing = headers["x-toolsearch-listing"];
  const execution = headers["x-toolsearch-execution"] ?? "client";
  // code mode: runCode is a server-side tool of the session (absent from the key when not asked
  // for: keys stay as they were; then the profile's `code` decides, session/create.ts)
  const code = headers["x-toolsearch-code"];
  const key = typeof body.prompt_cache_key === "string" && body.prompt_cache_key ? body.prompt_cache_key : undefined;
  const id = await keyedSessionId(
    c,
    (endUser ? `end-user\u0000${endUser as string}\u0000` : "") +
      (body.sessionKey !== undefined
        ? `surface\u0000${body.sessionKey}`
        : key !== undefined
          ? `prompt_cache_key\u0000${key}`
          : `conversation\u0000${conversationKey(body, set, { profile, activation, listing, execution, ...(code ? { code } : {}) })}`),
  );
  const session = SessionClient.of(c, id);
  const begun = await session.beginChat(chain);
  if (begun) return { ...begun, session };
  // first request of this session: create it, with the plan for the tools it declares
  const { init, cat } = await sessionInit(
    { ...c, user },
    { model: body.model, profile, deferral: "auto", activation, listing, execution, ...(code ? { code } : {}) },
    id,
  );
  init.clientTools = planClientTools(set, core, planContext(init, cat, settings(c.env).policy));
  const state = await session.create(init);
  if (state) return { state, splices: [], session };
  // a concurrent request created it first
  const again = await session.beginChat(chain);
  if (!again) throw notFound(id);
  return { ...again, session };
}

export async function chatSession(
  c: RouteContext,
  body: TurnBody,
  headers: ChatHeaders,
  chain: string[],
  set: ClientToolSet,
): Promise<ChatSession> {
  const core = headers["x-toolsearch-core"] ?? [];
  const { state, splices, session } = await begin(c, body, headers, chain, set, core);
  checkExecution(headers, state);
  const cat = await sessionCatalog(c, state);
  const stored = state.clientTools;
  const current = stored ? stored.hash === set.hash && stored.core.join() === core.join() : set.tools.length === 0 && core.length === 0;
  const plan = current && stored ? stored : planClientTools(set, core, planContext(state, cat, settings(c.env).policy));
  if (!current) await session.setClientTools(plan);
  return { state, splices, session, cat, plan, toolsChanged: !current };
}

/**
 * The session as the agent loop sees it with the client's tools: the kept ones join the core tools,
 * the deferred ones the deferred section, and toolSearch is on when anything is deferred.
 */
export function chatView(state: SessionState, plan: ClientPlan): AgentSession {
  return {
    mode: state.mode === "deferred" || plan.deferred > 0 ? "deferred" : "full",
    activation: state.activation,
    systemSection: state.systemSection + plan.section,
    coreTools: [...state.coreTools, ...plan.kept],
    activations: state.activations,
    ...(state.code ? { code: state.code } : {}),
  };
}

/** Record activations in the session object (audited as chat); client tools kept loaded answer as already loaded. */
export function activateIn(session: SessionClient, plan: ClientPlan): Activate {
  const kept = new Set(plan.kept);
  return async (names, query, audit) => {
    const r = await session.activate(
      names.filter((n) => !kept.has(n)),
      query,
      { ...audit, via: "chat" },
    );
    return { ...r, alreadyLoaded: [...names.filter((n) => kept.has(n)), ...r.alreadyLoaded] };
  };
}

/**
 * The session's access view over the union with the client's tools: access rules govern catalog
 * tools only, so a client tool is visible unless it takes a denied catalog tool's name (the
 * session's gate refuses loading that name whoever declares it).
 */
export function clientAccess(view: AccessView, set: ClientToolSet): AccessView {
  if (!view.candidates || !set.tools.length) return view;
  const own = set.tools.map((t) => t.function.name).filter((n) => !view.denied.has(n));
  return { candidates: new Set([...view.candidates, ...own]), denied: view.denied };
}

/** A header asking for another execution mode than the session was created with is a conflict. */
function checkExecution(headers: ChatHeaders, state: SessionState): void {
  const asked = headers["x-toolsearch-execution"];
  const has = state.execution ?? "client";
  if (asked && asked !== has)
    throw new ToolsearchError(
      "conflict",
      `x-toolsearch-execution: session ${state.id.slice(0, 40)} runs with execution "${has}", set when it was created`,
    );
}
