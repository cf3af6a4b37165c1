// The toolsearch session behind a 2026-07-28 MCP client, which has no protocol session: the
// tenant's stable view. Its tools/list depends only on the URL options, the tenant and the
// deployment (catalog, POLICY, SERVERS), never on earlier calls (the revision's MUST), so it is the
// `proxy` surface (toolSearch + callTool; `?activation=inject` does not apply) and needs no
// handle: callTool takes the name of any offered tool. Requests that resolve to the same frozen
// fields share one session object, named by a hash of those fields (a new catalog or policy is a
// new object): it keeps the kept-alive upstream MCP sessions and the audit rows, each naming the
// client from the request's `_meta` clientInfo. The view is computed in the isolate, so tools/list
// and server/discover touch no storage; the object is created on its first call (and again after
// its idle expiry).

import { principalScope } from "../auth.ts";
import { canonicalJson, sha256Hex } from "../core/canonical.ts";
import { ToolsearchError } from "../core/errors.ts";
import type { LoadedCatalog } from "../catalogs.ts";
import type { RouteContext } from "../http.ts";
import { settings, type Settings } from "../settings.ts";
import { SessionClient } from "../session/client.ts";
import { keyedSessionId, sessionInit } from "../session/create.ts";
import type { SessionInit } from "../session/state.ts";
import { mcpSessionRequest, type McpSession } from "./server.ts";
import type { GatewayPort } from "./tools.ts";

export const MODERN_VERSION = "2026-07-28";

interface StableView {
  settings: Settings;
  init: SessionInit & { mcp: McpSession["mcp"] };
  cat: LoadedCatalog;
}

// per isolate: views by tenant and options, and the objects known to hold their session
const views = new Map<string, StableView>();
const created = new Set<string>();
const MAX = 1000;

/** The stable view for this request's tenant and URL options. */
export async function stableSession(c: RouteContext): Promise<{ session: McpSession; init: SessionInit; cat: LoadedCatalog }> {
  const cfg = settings(c.env);
  const req = { ...(await mcpSessionRequest(c, { protocolVersion: MODERN_VERSION })), activation: "proxy" as const };
  const key = `${principalScope(c)}\u0000${canonicalJson(req)}`;
  let view = views.get(key);
  if (!view || view.settings !== cfg) {
    const { init, cat } = await sessionInit(c, req, "");
    if (!init.mcp) throw new ToolsearchError("not_executable", "the MCP gateway needs SERVERS: no server can run its tools");
    const { id: _, ...fields } = init;
    const id = await keyedSessionId(c, `mcp-stable\u0000${await sha256Hex(canonicalJson(fields))}`);
    view = { settings: cfg, init: { ...init, id, mcp: init.mcp }, cat };
    if (views.size >= MAX) views.delete(views.keys().next().value!);
    views.set(key, view);
  }
  c.setCatalogLabel(view.cat.label);
  return { session: { ...view.init, createdAt: 0, activations: [] }, init: view.init, cat: view.cat };
}

/**
 * The stable session's calls and activations. The object is created on first use in this isolate,
 * and re-created once if it expired meanwhile: its "no such session" comes before anything runs,
 * so the retry cannot run a call twice. Every search shows its tools as loaded: "already loaded"
 * would speak of another client's requests.
 */
export function stablePort(c: RouteContext, init: SessionInit): GatewayPort {
  const client = SessionClient.of(c, init.id);
  const key = `${principalScope(c)}/${init.id}`;
  const ensure = async (again = false) => {
    if (created.has(key) && !again) return;
    await client.create(init);
    if (created.size >= MAX * 10) created.clear();
    created.add(key);
  };
  const withSession = async <T>(fn: () => Promise<T>): Promise<T> => {
    await ensure();
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ToolsearchError && e.code === "not_found")) throw e;
      await ensure(true);
      return fn();
    }
  };
  return {
    run: (name, args, context) => withSession(() => client.run(name, args, context)),
    activate: async (names, query, audit) => {
      const r = await withSession(() => client.activate(names, query, audit));
      return { ...r, loaded: [...r.loaded, ...r.alreadyLoaded], alreadyLoaded: [] };
    },
    resources: (op, context) => withSession(() => client.resources(op, context)),
  };
}
