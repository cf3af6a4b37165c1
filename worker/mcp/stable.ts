// The toolsearch session behind a 2026-07-28 MCP client, which has no protocol session: the
// tenant's stable view. Its tools/list depends only on the URL options, the tenant and the
// deployment (catalog, POLICY, SERVERS), never on earlier calls or on the client (the revision's
// MUST), so it is the `proxy` surface (toolSearch + callTool; `?activation=inject` does not apply)
// and needs no handle: callTool takes the name of any offered tool. The view is computed in the
// isolate, so tools/list and server/discover touch no storage. The session object behind it, with
// the kept-alive upstream MCP sessions and the audit rows, is named by a hash of the principal
// (tenant and user: a key's user or an assertsUser key's x-toolsearch-user), the frozen fields (a
// new catalog or policy is a new object) and the client the request's `_meta` clientInfo names
// (name and version; the revision gives no instance id and no end-user field): two clients of one
// key never share upstream MCP sessions (M9). clientInfo is self-reported, so it keeps a key's
// clients apart but proves nothing: end users who must not reach each other's sessions need a key
// (or an x-toolsearch-user) each. A request without clientInfo gets the object of old, shared by
// every such request of the principal. The object is created on its first call (and again after
// its idle expiry).

import { runProgram } from "../code/run.ts";
import type { CallContext } from "../session/execution.ts";
import { CLIENT_INFO_META_KEY } from "@modelcontextprotocol/server";
import { z } from "zod";
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
  /** the hash of the frozen fields, which the object ids of the view's clients are derived from */
  fields: string;
  init: SessionInit & { mcp: McpSession["mcp"] };
  cat: LoadedCatalog;
}

// per isolate: views by principal and options, object ids by view and client, and the objects known to exist
const views = new Map<string, StableView>();
const clientIds = new Map<string, string>();
const created = new Set<string>();
const MAX = 1000;

const Envelope = z.object({
  params: z.object({ _meta: z.object({ [CLIENT_INFO_META_KEY]: z.object({ name: z.string(), version: z.string().optional() }) }) }),
});

/**
 * The client a 2026-07-28 request names in its `_meta` (a hash of its name and version, so the
 * per-isolate map below holds short keys whatever a client sends), or "" when it names none.
 */
export async function clientIdentity(body: unknown): Promise<string> {
  const r = Envelope.safeParse(body);
  if (!r.success) return "";
  const { name, version } = r.data.params._meta[CLIENT_INFO_META_KEY];
  return sha256Hex(canonicalJson({ name, version: version ?? "" }));
}

/** The stable view for this request's principal and URL options, and its client's session object. */
export async function stableSession(
  c: RouteContext,
  body?: unknown,
): Promise<{ session: McpSession; init: SessionInit; cat: LoadedCatalog }> {
  const cfg = settings(c.env);
  const req = { ...(await mcpSessionRequest(c, { protocolVersion: MODERN_VERSION })), activation: "proxy" as const };
  const key = `${principalScope(c)}\u0000${canonicalJson(req)}`;
  let view = views.get(key);
  if (!view || view.settings !== cfg) {
    const { init, cat } = await sessionInit(c, req, "");
    if (!init.mcp) throw new ToolsearchError("not_executable", "the MCP gateway needs SERVERS: no server can run its tools");
    const { id: _, ...fields } = init;
    const hash = await sha256Hex(canonicalJson(fields));
    const id = await keyedSessionId(c, `mcp-stable\u0000${hash}`);
    view = { settings: cfg, fields: hash, init: { ...init, id, mcp: init.mcp }, cat };
    if (views.size >= MAX) views.delete(views.keys().next().value!);
    views.set(key, view);
  }
  c.setCatalogLabel(view.cat.label);
  const init = { ...view.init, id: await clientObjectId(c, view, await clientIdentity(body)) };
  return { session: { ...init, createdAt: 0, activations: [] }, init, cat: view.cat };
}

/** The object id of the view for one client: the view's own without a client (as before M9). */
async function clientObjectId(c: RouteContext, view: StableView, client: string): Promise<string> {
  if (!client) return view.init.id;
  const key = `${view.init.id}\u0000${client}`; // the view's id names the principal and the fields
  let id = clientIds.get(key);
  if (!id) {
    id = await keyedSessionId(c, `mcp-stable\u0000${view.fields}\u0000client\u0000${client}`);
    if (clientIds.size >= MAX) clientIds.delete(clientIds.keys().next().value!);
    clientIds.set(key, id);
  }
  return id;
}

/**
 * The stable session's calls and activations. The object is created on first use in this isolate
 * (or by ready(), before the SDK answers: a new session refused by the key's quota is then the
 * route's 429), and re-created once if it expired meanwhile: its "no such session" comes before
 * anything runs, so the retry cannot run a call twice. Every search shows its tools as loaded:
 * "already loaded" would speak of another client's requests.
 */
export function stablePort(c: RouteContext, init: SessionInit, cat: LoadedCatalog): GatewayPort & { ready(): Promise<void> } {
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
    ready: () => ensure(),
    run: (name, args, context) => withSession(() => client.run(name, args, context)),
    activate: async (names, query, audit) => {
      const r = await withSession(() => client.activate(names, query, audit));
      return { ...r, loaded: [...r.loaded, ...r.alreadyLoaded], alreadyLoaded: [] };
    },
    resources: (op, context) => withSession(() => client.resources(op, context)),
    // a program is not retried (its calls may have run): the object is made first, its calls each retried
    runCode: async (code, context, signal) => {
      await ensure();
      const port = {
        id: client.id,
        run: (n: string, a: unknown, ctx: CallContext) => withSession(() => client.run(n, a, ctx)),
        cancel: client.cancel.bind(client),
        recordRun: client.recordRun.bind(client),
      };
      return runProgram({ ...c, ...context }, port, cat, code, signal);
    },
  };
}
