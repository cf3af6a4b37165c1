// One agent turn on the chat path, whatever protocol the client speaks: /v1/chat/completions and
// /v1/responses (which translates its items to chat messages first) both end here, so there is one
// session lookup, one plan for the client's tools, one splice rule and one agent loop (core/agent.ts).
// The session (chat/conversation.ts) supplies the frozen deferred section and the activated tools;
// stored splices put back the rounds the client never saw, so each upstream request extends the
// previous one byte for byte. With edge execution, catalog tools of servers in SERVERS run here
// (the one execution path) as hidden rounds. A client's `defer_loading` flags are read by the plan
// (core/client-tools.ts) and never reach the upstream; neither does a hosted `tool_search` tool.
// A client that goes away (request signal, cancelled stream) aborts the model call and cancels the
// edge call running (session/cancel.ts).
// What a surface does with the result (JSON, SSE chunks, Responses events) is its own business.

import { runProgram, runResult } from "../code/run.ts";
import { runAgent, type AgentResult, type ModelTurn } from "../core/agent.ts";
import { resultText } from "../core/call-result.ts";
import { withSystemSection, type AgentSession, type ChatMessage, type OpenAITool, type ToolCall } from "../core/chat.ts";
import { forcedNames, upstreamClientTool, withClientTools, type ClientPlan } from "../core/client-tools.ts";
import type { SearchCatalog } from "../core/search.ts";
import type { SessionState } from "../session/state.ts";
import { applySplices, prefixChain } from "../core/splice.ts";
import type { Activate } from "../core/tool-search.ts";
import { notAvailable, sessionAccess, type AccessView } from "../core/access.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { ApprovalAsked } from "../session/call-end.ts";
import { isLoaded } from "../core/frozen.ts";
import { requireServers, settings } from "../settings.ts";
import type { RouteContext } from "../http.ts";
import type { ChatBody, ChatHeaders } from "../wire/chat.ts";
import { callKey, cancelOnAbort } from "../session/cancel.ts";
import type { SessionClient } from "../session/client.ts";
import { activateIn, chatSession, chatView, clientAccess, SESSION_HEADER, type TurnBody } from "./conversation.ts";
import { callUpstream, type RoundMeta } from "./model-client.ts";
import { clientToolSet, type ToolsKey } from "./tool-set-cache.ts";

/** What the stream's chunks and headers report, as the rounds go by. */
export interface Progress {
  meta: RoundMeta;
  hops: number;
}

export interface ChatTurn {
  /**
   * run the agent loop; `onText` sees text as the upstream says it (hidden rounds included), and
   * `onEdgeCall` each call the Worker is about to run
   */
  run(onText?: (t: string) => void, onEdgeCall?: () => void): Promise<AgentResult>;
  progress: Progress;
  /** aborted when the client goes away (request signal, cancelled stream) */
  abort: AbortController;
  /** x-toolsearch-* headers every answer carries */
  headers: Record<string, string>;
  /** names this turn loaded (searches, and calls that loaded their tool), in order */
  loaded: string[];
  /** each activation this turn asked for: its query (`select:...`, keywords, `call:<name>`, ...) and the names it matched */
  searches: Array<{ query: string; names: string[] }>;
  session: SessionClient;
}

/**
 * What a surface adds to the turn (the Messages API): names to load before the first round (its
 * tool_reference blocks), the client's tools without the catalog's (a client that brings its own
 * search), and calls it answers itself in hidden rounds (Anthropic's regex tool search).
 */
export interface TurnExtras {
  load?: readonly string[];
  /** another upstream than the Chat Completions one (the Messages API's Anthropic upstream) */
  callModel?: (
    round: { messages: ChatMessage[]; tools: OpenAITool[]; toolChoice?: unknown },
    opts: { signal: AbortSignal; onText?: (t: string, meta: RoundMeta) => void },
  ) => Promise<ModelTurn & { meta: RoundMeta }>;
  withoutCatalog?: boolean;
  /**
   * Responses: an edge call that waits for a person's yes goes back to the client as an approval
   * request (recorded here) instead of the link in a hidden round
   */
  approvals?: ApprovalAsked[];
  /** the tool-set cache's key for the body's tools (chat/tool-set-cache.ts): the surface and its raw `tools` member */
  toolsKey?: ToolsKey;
  /** `view`: what the session may find (absent: every tool), as toolSearch is given it */
  answer?: (
    call: ToolCall,
    ctx: { catalog: SearchCatalog; activate: Activate; view?: AccessView },
  ) => Promise<{ result: string; activations?: readonly string[] } | undefined>;
}

/** Prepare a turn: the session resolved (created on first use), the plan made, splices applied. */
/** A chat request as the turn reads it (the Responses route builds one from its items). */
export type ChatTurnBody = TurnBody &
  Pick<ChatBody, "tools" | "stream" | "stream_options"> & {
    tool_choice?: unknown;
    /** everything else (temperature, max_tokens, ...) goes to the upstream as it is */
    [k: string]: unknown;
  };

export async function chatTurn(c: RouteContext, body: ChatTurnBody, options: ChatHeaders, extras: TurnExtras = {}): Promise<ChatTurn> {
  const maxHops = options["x-toolsearch-max-hops"] ?? settings(c.env).maxHops;
  const maxEdgeRounds = options["x-toolsearch-max-edge-rounds"] ?? settings(c.env).maxEdgeRounds;
  const clientMessages: ChatMessage[] = [...body.messages];
  const chain = await prefixChain(clientMessages);
  const { messages: _m, tools = [], stream: _s, stream_options: _o, tool_choice, sessionKey: _k, endUser: _u, ...passthrough } = body;
  // a hosted tool_search tool asks for what the Worker does anyway: its search answers toolSearch
  const declared = tools.flatMap((t) => (t.type === "function" ? [t] : []));
  const set = await clientToolSet(declared, extras.toolsKey);
  const clientTools = declared.map(upstreamClientTool);
  const { state, splices, session, cat, plan, toolsChanged } = await chatSession(c, body, options, chain, set);
  const bare = extras.withoutCatalog === true;
  const catalog = bare ? set.catalog : withClientTools(cat, set);
  const access = bare ? undefined : clientAccess(sessionAccess(cat.tools, state), set);
  const loaded: string[] = [];
  const searches: ChatTurn["searches"] = [];
  const record = activateIn(session, plan);
  const activate: Activate = async (names, query, audit) => {
    const r = await record(names, query, audit);
    loaded.push(...r.loaded);
    searches.push({ query, names: [...names] });
    return r;
  };
  let view = bare ? bareView(state, plan) : chatView(state, plan);
  // a tool the client forces with tool_choice must be in tools: load it (appended, like a search);
  // so is one the surface names (a tool_reference)
  for (const [names, query] of [
    [forcedNames(tool_choice), "tool_choice"],
    [extras.load ?? [], "reference"],
  ] as const) {
    // a denied name goes to the session's gate even in full mode, which refuses and audits it
    const due = names.filter((n) => catalog.byName.has(n) && (!isLoaded(view, n) || access?.denied.has(n)));
    if (!due.length) continue;
    const r = await activate(due, `${query}:${due.join(",")}`, { load: true });
    // the session's tool gate refused one (audited there): the request cannot be made with it
    if (r.denied?.length) throw new ToolsearchError("forbidden", notAvailable(r.denied[0]!));
    view = { ...view, activations: r.activations };
  }
  const spliced = applySplices(clientMessages, chain, splices);
  const config = settings(c.env);
  const cfg = config.upstream;
  const edge = state.execution === "edge" ? { servers: new Set(requireServers(config).keys()), maxRounds: maxEdgeRounds } : undefined;
  const abort = new AbortController();
  c.request.signal?.addEventListener("abort", () => abort.abort());
  // the turn's edge calls share a key: a client gone mid-turn cancels the call running and any after it
  const key = callKey("chat");
  const unwatch = cancelOnAbort(c, session, key, abort.signal);
  const progress: Progress = { meta: { id: "", created: 0, model: body.model }, hops: 0 };
  const run = (onText?: (t: string) => void, onEdgeCall?: () => void): Promise<AgentResult> =>
    runAgent(
      {
        catalog,
        session: view,
        clientTools,
        messages: withSystemSection(spliced.messages, view.systemSection),
        clientToolChoice: tool_choice,
        maxHops,
        view: access,
        edge,
      },
      {
        callModel: async (round) => {
          progress.hops++;
          const opts = {
            signal: abort.signal,
            onText: (t: string, m: RoundMeta) => {
              progress.meta = m;
              onText?.(t);
            },
          };
          const turn = extras.callModel ? await extras.callModel(round, opts) : await callUpstream(cfg, passthrough, round, opts);
          progress.meta = turn.meta;
          return turn;
        },
        activate,
        answer: extras.answer && ((call) => extras.answer!(call, { catalog, activate, view: access })),
        runCode: async (code) =>
          resultText(runResult(await runProgram({ env: c.env, ctx: c.ctx, via: "chat" }, session, cat, code, abort.signal))),
        execute: async (name, args) => {
          onEdgeCall?.();
          const outcome = await session.run(name, args, { via: "chat", key });
          const asked = outcome.ok && outcome.approval?.status === "pending" ? outcome.approval : undefined;
          if (asked && extras.approvals) return (extras.approvals.push(asked), null);
          return outcome.ok ? resultText(outcome.result) : `Error: ${outcome.message}`;
        },
      },
    ).then(async (result) => {
      unwatch();
      if (result.splice) await session.addSplice({ at: clientMessages.length, prefix: chain[clientMessages.length]!, ...result.splice });
      return result;
    });
  const headers = {
    [SESSION_HEADER]: state.id,
    "x-toolsearch-spliced": String(spliced.applied),
    "x-toolsearch-tools-changed": toolsChanged ? "1" : "0",
  };
  return { run, progress, abort, headers, session, loaded, searches };
}

/** The session without its catalog: the client's tools only, every one kept loaded, nothing deferred. */
export function bareView(state: SessionState, plan: ClientPlan): AgentSession {
  return { mode: "full", activation: state.activation, systemSection: "", coreTools: plan.kept, activations: [] };
}
