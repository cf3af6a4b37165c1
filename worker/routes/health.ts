// GET /healthz: the pinned catalog (every route answers 503 until it loads) and what is wrong with
// the deployment's settings for it (configReport): `problems` (a malformed SERVERS: `ok` is false)
// and `warnings` (SERVERS entries that name no server of the catalog). The status stays 200, since
// every route that does not need the faulty setting still works. Any other bad setting (an unknown
// POLICY, QUOTAS or SERVERS key, a bad number) stops every route: /healthz then answers the same 503
// config_invalid as they do (worker/index.ts), naming the setting. /healthz is open, so without a
// valid API key it names no server: the messages say how many, and a key shows which. `code`:
// whether code mode's runCode can run here, with what engine, and why not (code/engine.ts).

import { authenticate } from "../auth.ts";
import { loadCatalog } from "../catalogs.ts";
import { codeEngine } from "../code/engine.ts";
import { configReport, settings } from "../settings.ts";
import { json, route, type RouteContext } from "../http.ts";
import type { HealthAnswer } from "../wire/answers.ts";

async function health(c: RouteContext): Promise<Response> {
  const config = settings(c.env);
  const cat = await loadCatalog(config.catalogFile);
  const report = configReport(config, cat.catalog);
  const keyed = await authenticate(c.request, c.env.API_KEYS).then(
    () => true,
    () => false,
  );
  const anonymous = (list: string[], what: string) =>
    list.length ? [`${list.length} ${what}; send an API key to see which (SERVERS names no server here without one)`] : [];
  const problems = keyed ? report.problems : anonymous(report.problems, "problem(s) with SERVERS");
  const warnings = keyed ? report.warnings : anonymous(report.warnings, "SERVERS entries name no server of the pinned catalog");
  return json({
    ok: problems.length === 0,
    catalog: cat.label,
    tools: cat.catalog.tools.length,
    catalogLoadMs: cat.loadMs,
    problems,
    warnings,
    code: await codeEngine(),
  } satisfies HealthAnswer);
}

export const healthRoutes = [route("GET", "/healthz", health)];
