// The MCP 2026-07-28 leg of mcp-client.ts, with the v2 SDK client (@modelcontextprotocol/client;
// its workerd build validates with @cfworker/json-schema, so nothing generates code). Such a
// server keeps no sessions: no initialize, no Mcp-Session-Id, every request carries its protocol
// version, client info and capabilities in _meta. A first call probes with server/discover (the
// client pinned to 2026-07-28); the server's discover result is what the caller stores, and later
// calls hand it back (`prior`), so each is one POST: nothing to resume, expire or DELETE. A server
// that answers the probe without offering 2026-07-28 is a legacy one ("legacy": nothing ran).
// This file knows neither the session object nor mcp-client.ts: the caller stores what it returns
// and turns a failure into its UpstreamFailure.

import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type DiscoverResult,
} from "@modelcontextprotocol/client";
import type { CallToolResult } from "../core/call-result.ts";
import type { ServerConfig } from "../core/servers.ts";
import { brokenOff } from "./upstream-failure.ts";

export const MODERN_PROTOCOL = "2026-07-28";

/** One tools/call (the fields of mcp-client.ts's ToolCallRequest). */
export interface ModernCall {
  tool: string;
  args: Record<string, unknown>;
  signal?: AbortSignal;
  onProgress?: (p: { progress: number; total?: number; message?: string }) => void;
}

export type ModernOutcome =
  /** `discover`: the server's server/discover result (JSON), to hand back on the next call */
  | { kind: "result"; result: CallToolResult; discover: string }
  /** the server answered the probe but does not speak 2026-07-28: nothing ran */
  | { kind: "legacy" }
  /** `refused`: the server turned the request away at its protocol layer (HTTP 400, 404, 405, 406, 415): nothing ran */
  | { kind: "failed"; failure: "timeout" | "transport_error" | "cancelled"; message: string; refused?: true };

const CLIENT_INFO = { name: "toolsearch-edge", version: "1.0.0" };

/** The first Error in a cause chain that is not the SDK's own wrapper (a fetch that got no response). */
function rootCause(e: unknown): unknown {
  let c: unknown = e;
  for (let i = 0; i < 5 && c instanceof SdkError && c.cause; i++) c = c.cause;
  return c;
}

function failed(e: unknown, server: ServerConfig, signal?: AbortSignal): ModernOutcome {
  if (signal?.aborted)
    return { kind: "failed", failure: "cancelled", message: `cancelled: ${String(signal.reason?.message ?? signal.reason).slice(0, 200)}` };
  if (e instanceof SdkError && e.code === SdkErrorCode.RequestTimeout)
    return { kind: "failed", failure: "timeout", message: `no answer within ${server.timeoutMs} ms` };
  const cause = rootCause(e);
  const msg = cause instanceof Error ? cause.message : String(cause);
  const refused = e instanceof SdkHttpError && [400, 404, 405, 406, 415].includes(e.status);
  return { kind: "failed", failure: "transport_error", message: msg.slice(0, 300), ...(refused ? { refused: true as const } : {}) };
}

/** The tool's result, without the protocol's own `_meta` keys (serverInfo) and `resultType`. */
function toolResult(raw: Record<string, unknown>): CallToolResult {
  const { _meta, resultType: _, ...rest } = raw;
  const meta = Object.entries((_meta ?? {}) as Record<string, unknown>).filter(([k]) => !k.startsWith("io.modelcontextprotocol/"));
  return { ...rest, ...(meta.length ? { _meta: Object.fromEntries(meta) } : {}) } as CallToolResult;
}

/**
 * Call `tool` on a 2026-07-28 server: with `discover` (a stored server/discover result) directly,
 * without it after the probe. `fetchImpl` adds the server's headers (and reports no response as its
 * own error, which becomes the message).
 */
export async function callModern(
  server: ServerConfig,
  fetchImpl: typeof fetch,
  discover: string | null,
  { tool, args, signal, onProgress }: ModernCall,
): Promise<ModernOutcome> {
  const client = new Client(CLIENT_INFO, { versionNegotiation: { mode: { pin: MODERN_PROTOCOL } } });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch: fetchImpl });
  try {
    try {
      const prior = discover ? { kind: "modern" as const, discover: JSON.parse(discover) as DiscoverResult } : undefined;
      await client.connect(transport, { timeout: server.timeoutMs, signal, prior });
    } catch (e) {
      // an answer without 2026-07-28 in it (an error, a 4xx, another version list) is a legacy server;
      // a probe that got no answer at all is an outage, reported as such
      const legacy = e instanceof SdkError && e.code === SdkErrorCode.EraNegotiationFailed && !e.cause && !discover;
      return legacy ? { kind: "legacy" } : failed(e, server, signal);
    }
    const probed = JSON.stringify(client.getDiscoverResult() ?? null);
    try {
      const progress = onProgress && {
        onprogress: ({ progress, total, message }: { progress: number; total?: number; message?: string }) =>
          onProgress({ progress, total, message }),
      };
      // an answer cut at the read limit on an SSE stream fails the call at once, not at its timeout
      const call = client.callTool({ name: tool, arguments: args }, { timeout: server.timeoutMs, signal, ...progress });
      const raw = await Promise.race([call, brokenOff(client)]);
      return { kind: "result", result: toolResult(raw), discover: discover ?? probed };
    } catch (e) {
      // the server answered the call with a JSON-RPC error (unknown tool, bad params): the tool failed
      if (e instanceof ProtocolError && !signal?.aborted) {
        const result: CallToolResult = { content: [{ type: "text", text: `MCP error ${e.code}: ${e.message}` }], isError: true };
        return { kind: "result", result, discover: discover ?? probed };
      }
      return failed(e, server, signal);
    }
  } finally {
    await client.close().catch(() => {});
  }
}
