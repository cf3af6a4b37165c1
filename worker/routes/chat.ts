// POST /v1/chat/completions: OpenAI's Chat Completions, with tool search run server-side. The
// session (chat/conversation.ts: the x-toolsearch-session header, the body's prompt_cache_key, or
// the conversation itself) supplies the frozen deferred section and the activated tools, and a
// plan for the tools the client declares (kept loaded or deferred, like catalog tools); stored
// splices put back the rounds the client never saw, so each upstream request extends the
// previous one byte for byte. With the session option `execution: "edge"` (header
// x-toolsearch-execution when the request creates the session), calls to catalog tools of servers
// in SERVERS run here (the one execution path) as hidden rounds. The loop itself is core/agent.ts;
// this file speaks HTTP: request checks, JSON or SSE out, headers.

import { runAgent, type AgentResult } from "../core/agent.ts";
import { resultText } from "../core/call-result.ts";
import { withSystemSection, type ChatMessage } from "../core/chat.ts";
import { forcedNames, withClientTools } from "../core/client-tools.ts";
import { ToolsearchError } from "../core/errors.ts";
import { applySplices, prefixChain } from "../core/splice.ts";
import { activateIn, chatSession, chatView, clientAccess, SESSION_HEADER } from "../chat/conversation.ts";
import { clientToolSet } from "../chat/tool-set-cache.ts";
import { requireServers, settings } from "../settings.ts";
import { json, readJson, route, type RouteContext } from "../http.ts";
import { callUpstream, upstreamClient, type RoundMeta } from "../chat/model-client.ts";
import { sessionAccess } from "../core/access.ts";
import { isLoaded } from "../core/frozen.ts";
import { CHAT_MAX_BODY_BYTES, parseChatBody, parseChatHeaders } from "../wire/chat.ts";

async function chat(c: RouteContext): Promise<Response> {
  const options = parseChatHeaders(c.request.headers);
  const body = parseChatBody(await readJson(c.request, CHAT_MAX_BODY_BYTES));
  const maxHops = options["x-toolsearch-max-hops"] ?? settings(c.env).maxHops;
  const maxEdgeRounds = options["x-toolsearch-max-edge-rounds"] ?? settings(c.env).maxEdgeRounds;
  const clientMessages: ChatMessage[] = body.messages;
  const chain = await prefixChain(clientMessages);
  const { messages: _m, tools: clientTools = [], stream, stream_options, tool_choice, ...passthrough } = body;
  const set = await clientToolSet(clientTools);
  const { state, splices, session, cat, plan, toolsChanged } = await chatSession(c, body, options, chain, set);
  const catalog = withClientTools(cat, set);
  const access = clientAccess(sessionAccess(cat.tools, state), set);
  const activate = activateIn(session, plan);
  let view = chatView(state, plan);
  // a tool the client forces with tool_choice must be in tools: load it (appended, like a search)
  const forced = forcedNames(tool_choice).filter((n) => catalog.byName.has(n) && !isLoaded(view, n));
  if (forced.length) {
    const loaded = await activate(forced, `tool_choice:${forced.join(",")}`, { load: true });
    view = { ...view, activations: loaded.activations };
  }
  const spliced = applySplices(clientMessages, chain, splices);
  const config = settings(c.env);
  const edge = state.execution === "edge" ? { servers: new Set(requireServers(config).keys()), maxRounds: maxEdgeRounds } : undefined;
  const cfg = config.upstream;
  const client = upstreamClient(cfg);
  // the client going away (request.signal) or cancelling the stream aborts the upstream call
  const abort = new AbortController();
  c.request.signal?.addEventListener("abort", () => abort.abort());
  // what the stream's chunks and headers report, as the rounds go by
  const progress: Progress = { meta: { id: "", created: 0, model: body.model }, hops: 0 };
  const run = (onText?: (t: string) => void): Promise<AgentResult> =>
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
          const turn = await callUpstream(client, cfg, passthrough, round, {
            signal: abort.signal,
            onText: (t, m) => {
              progress.meta = m;
              onText?.(t);
            },
          });
          progress.meta = turn.meta;
          return turn;
        },
        activate,
        execute: async (name, args) => {
          const outcome = await session.run(name, args, { via: "chat" });
          return outcome.ok ? resultText(outcome.result) : `Error: ${outcome.message}`;
        },
      },
    ).then(async (result) => {
      if (result.splice) await session.addSplice({ at: clientMessages.length, prefix: chain[clientMessages.length]!, ...result.splice });
      return result;
    });
  const headers = {
    [SESSION_HEADER]: state.id,
    "x-toolsearch-spliced": String(spliced.applied),
    "x-toolsearch-tools-changed": toolsChanged ? "1" : "0",
  };
  if (!stream) {
    const result = await run();
    const { id, created, model } = progress.meta;
    const completion = {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [{ index: 0, message: result.message, finish_reason: result.finishReason, logprobs: null }],
      usage: result.usage,
    };
    return json(completion, 200, { ...headers, "x-toolsearch-hops": String(result.hops) });
  }
  return streamed(run, progress, abort, headers, !!stream_options?.include_usage);
}

interface Progress {
  meta: RoundMeta;
  hops: number;
}

/**
 * SSE in OpenAI's chunk format. Headers go out with the first text delta or when the loop ends, so
 * a failure before any byte is still a plain JSON error with its status.
 */
async function streamed(
  run: (onText: (t: string) => void) => Promise<AgentResult>,
  progress: Progress,
  abort: AbortController,
  headers: Record<string, string>,
  includeUsage: boolean,
): Promise<Response> {
  // a cancelled body (the client went away mid-stream) aborts the upstream call
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const readable = new ReadableStream<Uint8Array>({ start: (c) => void (out = c), cancel: () => abort.abort() });
  const enc = new TextEncoder();
  const write = (s: string) => {
    try {
      out.enqueue(enc.encode(s));
    } catch {
      abort.abort();
    }
  };
  const close = () => {
    try {
      out.close();
    } catch {
      /* already cancelled */
    }
  };
  const send = (o: unknown) => write(`data: ${JSON.stringify(o)}\n\n`);
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => {
    const m = progress.meta;
    return {
      id: m.id,
      object: "chat.completion.chunk",
      created: m.created,
      model: m.model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    };
  };
  let opened = false;
  let open!: () => void;
  const opening = new Promise<void>((r) => (open = r));
  const begin = () => {
    if (opened) return;
    opened = true;
    send(chunk({ role: "assistant", content: "" }));
    open();
  };
  const done = run((t) => {
    begin();
    send(chunk({ content: t }));
  }).then(
    async (result) => {
      begin();
      const calls = result.message.tool_calls ?? [];
      calls.forEach((call, index) =>
        send(
          chunk({
            tool_calls: [
              { index, id: call.id, type: "function", function: { name: call.function.name, arguments: call.function.arguments } },
            ],
          }),
        ),
      );
      send(chunk({}, result.finishReason));
      if (includeUsage) send({ ...chunk({}), choices: [], usage: result.usage });
      write(`: x-toolsearch-hops ${result.hops}\n\ndata: [DONE]\n\n`);
      close();
    },
    async (e: unknown) => {
      if (!opened) throw e;
      // mid-stream failure: the status is already sent; say what happened in the stream
      const err = e instanceof ToolsearchError ? e : new ToolsearchError("internal", "internal error");
      send(err.toJSON());
      close();
    },
  );
  await Promise.race([opening, done]);
  return new Response(readable, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      ...headers,
      "x-toolsearch-hops": String(progress.hops),
    },
  });
}

export const chatRoutes = [route("POST", "/v1/chat/completions", chat)];
