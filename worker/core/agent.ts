// The agent loop behind /v1/chat/completions, pure: I/O (the model call, recording activations)
// is passed in. Each round sends the upstream request; the model's calls are sorted into calls the
// client runs (its own tools; catalog tools with valid arguments) and calls answered here
// (toolSearch, arguments that fail the schema, unknown names). A round with any answered call is
// hidden: its results are appended and the model is called again, at most `maxHops` times; the
// last allowed call sets tool_choice "none" so the model must answer. Only the final round's
// message (with any text said in hidden rounds) reaches the client, and a splice records what the
// client did not see. Tools the client declared are resolved through `catalog` like catalog tools
// (client-tools.ts), so a deferred one is loaded on its first call.
// With edge execution, calls to catalog tools of reachable servers are run here too (io.execute,
// the session's one execution path) and their results answered in a hidden round; edge rounds have
// their own limit (`edge.maxRounds`), apart from the search rounds (`maxHops`). Catalog tools the
// session's access view denies are refused by name, never loaded or passed on. The `pattern`
// checks of all the request's calls share one budget (tool-args.ts).

import { RUN_CODE_NAME, RUN_CODE_TOOL } from "./run-code-tool.ts";
import { notAvailable, type AccessView } from "./access.ts";
import type { CatalogTool } from "./catalog.ts";
import {
  CALL_TOOL_NAME,
  textOf,
  upstreamTools,
  addUsage,
  emptyUsage,
  type ChatMessage,
  type OpenAITool,
  type AgentSession,
  type ToolCall,
  type Usage,
} from "./chat.ts";
import { ToolsearchError } from "./errors.ts";
import { CALL_TOOL_TOOL, TOOL_SEARCH_NAME } from "./prompt.ts";
import { closestNames, type SearchCatalog } from "./search.ts";
import { messageSig, type Splice } from "./splice.ts";
import { checkArguments, patternBudget } from "./tool-args.ts";
import { answerToolSearch, proxySchemas, type Activate } from "./tool-search.ts";

export interface ModelTurn {
  message: ChatMessage;
  finishReason: string | null;
  usage?: Partial<Usage> | null;
}

export interface AgentIO {
  callModel(request: { messages: ChatMessage[]; tools: OpenAITool[]; toolChoice?: unknown }): Promise<ModelTurn>;
  activate: Activate;
  /** run a code-mode program at the edge (code-mode sessions); the text is the tool message the model gets */
  runCode?: (code: string) => Promise<string>;
  /**
   * run a catalog tool at the edge; the text is the tool message the model gets. null: the call goes
   * back to the client instead (a Responses approval request: the client answers it, then it runs)
   */
  execute?(name: string, args: Record<string, unknown>): Promise<string | null>;
  /** a call the surface answers itself in a hidden round, with the activations it made (undefined: judged as usual) */
  answer?(call: ToolCall): Promise<{ result: string; activations?: readonly string[] } | undefined>;
}

export interface AgentInput {
  catalog: SearchCatalog & { byName: ReadonlyMap<string, CatalogTool> };
  session: AgentSession;
  clientTools: readonly OpenAITool[];
  /** the client's messages, splices applied, system section in place */
  messages: readonly ChatMessage[];
  clientToolChoice?: unknown;
  maxHops: number;
  /** the session's access view (absent: every tool); client tools are never denied */
  view?: AccessView;
  /** edge execution: the servers the Worker reaches, and the most hidden rounds of edge calls */
  edge?: { servers: ReadonlySet<string>; maxRounds: number };
}

export interface AgentResult {
  /** the message the client receives */
  message: ChatMessage;
  finishReason: string | null;
  usage: Usage;
  hops: number;
  /** null when the client saw everything upstream saw */
  splice: Omit<Splice, "at" | "prefix"> | null;
}

type Verdict = { call: ToolCall; client: ToolCall } | { call: ToolCall; answer: string; edge?: true };

function toolResult(call: ToolCall, content: string): ChatMessage {
  return { role: "tool", tool_call_id: call.id, content };
}

export async function runAgent(input: AgentInput, io: AgentIO): Promise<AgentResult> {
  const { catalog, clientTools, maxHops } = input;
  const session = { ...input.session, activations: [...input.session.activations] };
  const clientNames = new Set(clientTools.map((t) => t.function.name));
  const hidden: ChatMessage[] = [];
  let usage = emptyUsage();
  let text = "";
  const rounds = { search: 0, edge: 0 };
  const maxEdge = input.edge?.maxRounds ?? 0;
  // what the schemas' `pattern` checks of this request's calls may cost, together (R2-M4)
  const patterns = patternBudget();
  for (let hop = 0; ; hop++) {
    // either budget spent: the next call is the last, and the model must answer
    const last = rounds.search >= maxHops || (input.edge !== undefined && rounds.edge >= maxEdge);
    const turn = await io.callModel({
      messages: [...input.messages, ...hidden],
      tools: upstreamTools(clientTools, session, catalog.byName),
      toolChoice: last ? "none" : input.clientToolChoice,
    });
    usage = addUsage(usage, turn.usage);
    text += textOf(turn.message.content);
    const calls = turn.message.tool_calls ?? [];
    const verdicts: Verdict[] = [];
    for (const call of calls) verdicts.push(await judge(call));
    if (verdicts.every((v) => "client" in v)) {
      const rewritten = verdicts.some((v) => "client" in v && v.client !== v.call);
      const message: ChatMessage = { ...turn.message };
      if (calls.length) message.tool_calls = verdicts.map((v) => (v as { client: ToolCall }).client);
      // text said in hidden rounds reaches the client too, streaming or not
      if (hidden.length) message.content = text || turn.message.content;
      const changed = hidden.length > 0 || rewritten || messageSig(message) !== messageSig(turn.message);
      return {
        message,
        finishReason: turn.finishReason,
        usage,
        hops: hop + 1,
        splice: changed ? { hidden, reply: { sig: messageSig(message), upstream: turn.message } } : null,
      };
    }
    if (last)
      throw new ToolsearchError(
        "upstream_error",
        `the model kept calling tools after ${rounds.search} search and ${rounds.edge} edge rounds (limits ${maxHops} and ${maxEdge}) and tool_choice "none"`,
      );
    if (verdicts.some((v) => "edge" in v)) rounds.edge++;
    else rounds.search++;
    hidden.push(turn.message);
    for (const v of verdicts) {
      hidden.push(
        toolResult(
          v.call,
          "answer" in v
            ? v.answer
            : `Not run: this call was made together with calls that needed an answer first. Call ${v.call.function.name} again.`,
        ),
      );
    }
  }

  async function judge(call: ToolCall): Promise<Verdict> {
    const name = call.function?.name ?? "";
    const own = await io.answer?.(call);
    if (own?.activations) session.activations = [...own.activations];
    if (own !== undefined) return { call, answer: own.result };
    if (name === TOOL_SEARCH_NAME && session.mode === "deferred") {
      let args: { query?: unknown; limit?: unknown } = {};
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {
        return { call, answer: 'Error: toolSearch arguments are not valid JSON; pass {"query": "..."}.' };
      }
      const answer = await answerToolSearch(catalog, session, args?.query, args?.limit, io.activate, input.view, "chat");
      if (answer.activations) session.activations = answer.activations;
      return { call, answer: answer.result };
    }
    if (name === RUN_CODE_NAME && session.code === "on" && io.runCode) {
      const check = checkArguments(RUN_CODE_TOOL.inputSchema, call.function.arguments);
      if (!check.ok) return { call, answer: `Error: ${RUN_CODE_NAME} ${check.errors.join("; ")}` };
      return { call, answer: await io.runCode(String(check.args.code)), edge: true };
    }
    if (name === CALL_TOOL_NAME && session.mode === "deferred" && session.activation === "proxy") {
      const check = checkArguments(CALL_TOOL_TOOL.inputSchema, call.function.arguments);
      if (!check.ok) return { call, answer: `Error: callTool ${check.errors.join("; ")}` };
      const target = String(check.args.name);
      return viaCatalog(call, target, check.args.arguments as Record<string, unknown>);
    }
    // a client tool in the tools list goes to the client as it is; a deferred one is loaded first
    if (clientNames.has(name) && loaded(name)) return { call, client: call };
    return viaCatalog(call, name, call.function?.arguments ?? "");
  }

  function loaded(name: string): boolean {
    return session.mode === "full" || session.coreTools.includes(name) || session.activations.includes(name);
  }

  /**
   * A call to a catalog tool, or a client tool (`catalog` resolves both), loaded or not: load it
   * if needed, then check its arguments.
   */
  async function viaCatalog(call: ToolCall, name: string, args: string | Record<string, unknown>): Promise<Verdict> {
    const tool = catalog.byName.get(name);
    if (!tool)
      return {
        call,
        answer: `Error: there is no tool "${name.slice(0, 80)}". Closest names: ${closestNames(catalog, name, 3, input.view?.candidates).join(", ")}. Load one with ${TOOL_SEARCH_NAME}.`,
      };
    const denied = clientNames.has(name) ? undefined : input.view?.denied.get(name);
    if (denied) {
      // recorded as a denial in the session's audit trail; nothing is loaded
      await io.activate([], `call:${name}`, { denied: [{ name, reason: denied }], via: "chat", load: true });
      return { call, answer: `Error: ${notAvailable(name)}.` };
    }
    if (!loaded(name)) {
      const a = await io.activate([name], `call:${name}`, { load: true });
      session.activations = a.activations;
    }
    const check = checkArguments(tool.inputSchema, args, patterns);
    if (!check.ok) {
      const schema = session.activation === "proxy" ? proxySchemas(catalog.byName, [name]) : ` Its schema is now in your tools list.`;
      return {
        call,
        answer: `Error: invalid arguments for ${name}:\n${check.errors.map((e) => `- ${e}`).join("\n")}\nFix them and call again.${schema}`,
      };
    }
    if (input.edge?.servers.has(tool.server) && io.execute) {
      const answer = await io.execute(name, check.args);
      if (answer !== null) return { call, answer, edge: true };
      return { call, client: { ...call, function: { name, arguments: JSON.stringify(check.args) } } };
    }
    const client =
      typeof args === "string" && call.function.name === name
        ? call
        : { ...call, function: { name, arguments: JSON.stringify(check.args) } };
    return { call, client };
  }
}
