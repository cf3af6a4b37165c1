// POST /v1/sessions/:id/tools/:name/call `{ arguments }`: run a catalog tool on its MCP server, for
// clients that run their own loop. `:name` is the exposed name; a tool not loaded yet is loaded by
// the call. 200 with the MCP CallToolResult (a tool's own failure is `isError: true` inside it);
// arguments that fail the schema are a 400 naming the field and nothing reaches the server; a
// denied tool is a 403, a server without a SERVERS entry a 409 (a malformed SERVERS: a 500 naming
// it), a server that fails a 502 and one that does not answer in time a 504; a call that needs a
// person's yes (POLICY.approval) a 409 `approval_required` naming the approval and its link, and
// after a no a 403. The work is the one
// execution path (session/execution.ts). A client that closes the connection cancels the call
// (session/cancel.ts).

import { EXPOSED_NAME_RE } from "../core/catalog.ts";
import { ApprovalRequired, ToolsearchError } from "../core/errors.ts";
import { json, param, readJson, route, type RouteContext } from "../http.ts";
import { callKey, cancelOnAbort } from "../session/cancel.ts";
import { resultOf, SessionClient } from "../session/client.ts";
import { sessionCatalog } from "../session/create.ts";
import { requireServers, settings } from "../settings.ts";
import { parseCallBody } from "../wire/requests.ts";

async function callTool(c: RouteContext): Promise<Response> {
  const id = param(c, "id");
  const name = param(c, "name");
  const body = parseCallBody(await readJson(c.request));
  if (!EXPOSED_NAME_RE.test(name))
    throw new ToolsearchError("bad_request", "name: must be an exposed tool name (letters, digits, _ and -, at most 64)");
  requireServers(settings(c.env));
  const session = SessionClient.of(c, id);
  await sessionCatalog(c, await session.frozen());
  // a client that goes away cancels the call: the server is told, the row ends `cancelled`
  const key = callKey("rest");
  const unwatch = cancelOnAbort(c, session, key, c.request.signal);
  try {
    const outcome = await session.run(name, body.arguments, { via: "rest", key });
    // a call that needs a person's yes: 409 with the approval (pending), or 403 after a no
    const a = outcome.ok ? outcome.approval : undefined;
    if (a?.status === "pending")
      throw new ApprovalRequired(`a person must approve this call of ${name} first: ${a.link}`, {
        id: a.id,
        link: a.link,
        expiresAt: a.expiresAt,
      });
    if (a) throw new ToolsearchError("forbidden", `the person asked to approve this call of ${name} denied it; it was not run`);
    return json(resultOf(outcome));
  } finally {
    unwatch();
  }
}

export const callRoutes = [route("POST", "/v1/sessions/:id/tools/:name/call", callTool)];
