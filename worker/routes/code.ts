// POST /v1/sessions/:id/code `{ code }`: run a code-mode program (worker/code/run.ts) in a session
// created with `"code": "on"`. 200 with `{ run, value, logs, calls }`, or `{ run, error, logs,
// calls }` when the program did not finish (a syntax error, a throw, a limit: `error.kind` says
// which, with the line and column where there is one). A session without code mode is a 409 (a
// 503 where programs cannot run here: code/engine.ts). A
// client that goes away cancels the run and the calls it started.

import { ToolsearchError } from "../core/errors.ts";
import { codeEngine } from "../code/engine.ts";
import { runProgram } from "../code/run.ts";
import { json, param, readJson, route, type RouteContext } from "../http.ts";
import { SessionClient } from "../session/client.ts";
import { sessionCatalog } from "../session/create.ts";
import { requireServers, settings } from "../settings.ts";
import { parseCodeBody } from "../wire/requests.ts";

async function runCode(c: RouteContext): Promise<Response> {
  const body = parseCodeBody(await readJson(c.request));
  const session = SessionClient.of(c, param(c, "id"));
  const frozen = await session.frozen();
  if (frozen.code !== "on") {
    const engine = await codeEngine();
    if (!engine.available)
      throw new ToolsearchError("unavailable", `code mode cannot run here (${engine.reason}); GET /healthz says so too`);
    throw new ToolsearchError("conflict", `session ${frozen.id} was created without code mode: create one with "code": "on"`);
  }
  requireServers(settings(c.env));
  const cat = await sessionCatalog(c, frozen);
  return json(await runProgram({ env: c.env, ctx: c.ctx, via: "rest" }, session, cat, body.code, c.request.signal));
}

export const codeRoutes = [route("POST", "/v1/sessions/:id/code", runCode)];
