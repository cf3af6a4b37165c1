// GET /healthz: the pinned catalog (every route answers 503 until it loads) and what is wrong with
// the deployment's settings for it (configReport): `problems` (a malformed SERVERS: `ok` is false)
// and `warnings` (SERVERS entries that name no server of the catalog). The status stays 200, since
// every route that does not need the faulty setting still works.

import { loadCatalog } from "../catalogs.ts";
import { configReport, settings } from "../settings.ts";
import { json, route, type RouteContext } from "../http.ts";
import type { HealthAnswer } from "../wire/answers.ts";

async function health(c: RouteContext): Promise<Response> {
  const config = settings(c.env);
  const cat = await loadCatalog(c.env.ASSETS, config.catalogFile);
  const { problems, warnings } = configReport(config, cat.catalog);
  return json({
    ok: problems.length === 0,
    catalog: cat.label,
    tools: cat.catalog.tools.length,
    catalogLoadMs: cat.loadMs,
    problems,
    warnings,
  } satisfies HealthAnswer);
}

export const healthRoutes = [route("GET", "/healthz", health)];
