// GET /healthz: ok once the pinned catalog is loaded (every route answers 503 before that).

import { loadCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import { json, route, type RouteContext } from "../http.ts";

async function health(c: RouteContext): Promise<Response> {
  const cat = await loadCatalog(c.env.ASSETS, settings(c.env).catalogFile);
  return json({ ok: true, catalog: cat.label, tools: cat.catalog.tools.length, catalogLoadMs: cat.loadMs });
}

export const healthRoutes = [route("GET", "/healthz", health)];
