// What the gateway's tools do, whatever the protocol era: tools/list is the session's view
// (core/mcp-tools.ts: core tools, toolSearch with the frozen listing, callTool, and with `inject`
// activation the activated tools); tools/call runs toolSearch in the session (the same search path
// as /v1), callTool, or a catalog tool named directly, both through the one execution path
// (session/execution.ts: access, load-if-needed, argument check, kept-alive upstream session,
// audit), and in code-mode sessions runCode (worker/code/run.ts). The SDK servers (server.ts for 2025-era sessions, modern.ts for 2026-07-28) only wrap
// this: a tool's own failure (bad arguments, the server failing or timing out) is an `isError`
// result the model can act on, and so is a callTool name the gateway does not offer (with the
// closest offered names); a tools/call naming such a tool directly is an InvalidParams error, as
// clients expect for a tool they did not list. `listChanged` is called when a call grew an
// `inject` session's tools/list: the call reports whether it loaded its tool.

import type { CallToolResult } from "../core/call-result.ts";
import { sessionAccess } from "../core/access.ts";
import { ToolsearchError } from "../core/errors.ts";
import { GATEWAY_CALL_TOOL, resolveCallName } from "../core/mcp-gateway.ts";
import type { GatewayResourceOp, ResourceOutcome } from "../core/mcp-resources.ts";
import { pageOf, sessionMcpTools, type McpSessionView, type McpTool } from "../core/mcp-tools.ts";
import { CALL_TOOL_NAME, TOOL_SEARCH_NAME } from "../core/prompt.ts";
import { RUN_CODE_NAME, RUN_CODE_TOOL } from "../core/run-code-tool.ts";
import type { RunAnswer } from "../wire/code.ts";
import { runResult } from "../code/run.ts";
import { closestNames } from "../core/search.ts";
import { checkArguments } from "../core/tool-args.ts";
import { answerToolSearch, type Activate } from "../core/tool-search.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import type { AccessRules } from "../core/access.ts";
import type { CallContext, CallOutcome } from "../session/execution.ts";

/** A request the client got wrong (an unknown cursor, a tool it was never offered): InvalidParams in either SDK. */
export class InvalidParams extends Error {}

/** What the gateway needs of a session: its calls, its activations, its servers' resources and prompts. */
export interface GatewayPort {
  run(name: string, args: unknown, context: CallContext): Promise<CallOutcome>;
  activate: Activate;
  resources(op: GatewayResourceOp, context: CallContext): Promise<ResourceOutcome>;
  /** a code-mode program (worker/code/run.ts), cancelled when `signal` aborts */
  runCode(code: string, context: CallContext, signal?: AbortSignal): Promise<RunAnswer>;
}

export type GatewayView = McpSessionView & { access?: AccessRules };

export interface GatewayTools {
  list(cursor: string | undefined): { tools: McpTool[]; nextCursor?: string };
  call(
    name: string,
    args: Record<string, unknown>,
    context: CallContext,
    listChanged: () => Promise<void>,
    signal?: AbortSignal,
  ): Promise<CallToolResult>;
}

const text = (t: string, isError = false): CallToolResult => ({
  content: [{ type: "text", text: t }],
  ...(isError ? { isError: true } : {}),
});

export function gatewayTools(cat: LoadedCatalog, session: GatewayView, port: GatewayPort): GatewayTools {
  const access = sessionAccess(cat.tools, session);
  // activations as this request knows them (inject sessions re-read them per request)
  const view = { ...session, activations: [...session.activations] };
  const offered = (name: string) => cat.byName.has(name) && !access.denied.has(name) && (access.candidates?.has(name) ?? true);

  /** callTool: the target's failures, a name not offered included, are results the model can act on. */
  async function callByName(raw: Record<string, unknown>, context: CallContext): Promise<{ result: CallToolResult; loaded: boolean }> {
    // some models send the arguments object as a JSON string
    let inner = raw.arguments;
    if (typeof inner === "string") {
      try {
        inner = JSON.parse(inner);
      } catch {
        // left as it is: the check below says what is wrong
      }
    }
    const check = checkArguments(GATEWAY_CALL_TOOL.inputSchema, { ...raw, ...(inner === undefined ? {} : { arguments: inner }) });
    if (!check.ok) return { result: text(`Error: ${CALL_TOOL_NAME} ${check.errors.join("; ")}`, true), loaded: false };
    const name = resolveCallName(cat.byName, String(check.args.name));
    const outcome = await port.run(name, check.args.arguments ?? {}, context);
    const loaded = outcome.loaded === true;
    if (outcome.ok) return { result: outcome.result, loaded };
    if (!offered(name)) {
      const closest = closestNames(cat, name, 3, access.candidates).join(", ");
      const message =
        `Error: this gateway offers no tool named ${JSON.stringify(name.slice(0, 80))}. Closest offered names: ${closest}. ` +
        `Find tools with ${TOOL_SEARCH_NAME}, then pass the exact name its result gives.`;
      return { result: text(message, true), loaded };
    }
    return { result: text(`Error: ${outcome.message}`, true), loaded };
  }

  return {
    list(cursor) {
      try {
        const { page, nextCursor } = pageOf(sessionMcpTools(cat.byName, view), cursor);
        return nextCursor ? { tools: page, nextCursor } : { tools: page };
      } catch (e) {
        if (e instanceof ToolsearchError && e.code === "bad_request") throw new InvalidParams(e.message);
        throw e;
      }
    },

    async call(name, args, context, listChanged, signal) {
      const inject = view.activation === "inject";
      const changed = (grew: boolean) => (inject && grew ? listChanged() : Promise.resolve());
      if (name === TOOL_SEARCH_NAME && view.mode === "deferred") {
        const activate: Activate = (names, query, audit) => port.activate(names, query, { ...audit, client: context.client });
        const answer = await answerToolSearch(cat, view, args.query, args.limit, activate, access, "mcp");
        if (answer.activations) view.activations = answer.activations;
        await changed(answer.loaded.length > 0);
        return text(answer.result, answer.isError);
      }
      if (name === CALL_TOOL_NAME && view.mode === "deferred") {
        const { result, loaded } = await callByName(args, context);
        // a callTool that loaded its target grew an inject session's tools/list
        await changed(loaded);
        return result;
      }
      if (name === RUN_CODE_NAME && view.code === "on") {
        const check = checkArguments(RUN_CODE_TOOL.inputSchema, args);
        if (!check.ok || !String(check.args.code).trim())
          return text(`Error: ${RUN_CODE_NAME} needs \`code\`: the body of an async function`, true);
        return runResult(await port.runCode(String(check.args.code), context, signal));
      }
      // the execution path checks the session's view (denials are audited), loads, checks, runs
      const outcome = await port.run(name, args, context);
      if (!outcome.ok && (outcome.code === "not_found" || outcome.code === "forbidden" || outcome.code === "not_executable")) {
        throw new InvalidParams(`Unknown tool: ${name.slice(0, 80)} (${outcome.message})`);
      }
      // a deferred tool called directly was loaded by the call: tools/list grew
      await changed(outcome.loaded === true);
      return outcome.ok ? outcome.result : text(`Error: ${outcome.message}`, true);
    },
  };
}
