// The pinned catalog: GET /v1/catalog (label, servers with their metadata and token sums, totals,
// each listing form's size), GET /v1/catalog/tools (every tool without its schemas, for the
// page's table) and GET /v1/catalog/policy (what a new session for a model would decide, without
// creating one).

import { loadCatalog } from "../catalogs.ts";
import { settings } from "../config.ts";
import { freezeSession } from "../core/frozen.ts";
import { serverSummaries, tokenSums, toolRows } from "../core/summary.ts";
import { json, route, type RouteContext } from "../http.ts";
import { parsePolicyQuery } from "../bodies.ts";

const pinned = (c: RouteContext) => loadCatalog(c.env.ASSETS, settings(c.env).catalogFile);

async function catalogInfo(c: RouteContext): Promise<Response> {
  const cat = await pinned(c);
  const { name, version, hash, servers, tools, build } = cat.catalog;
  return json({
    name,
    version,
    hash,
    label: cat.label,
    file: cat.file,
    encoding: build.encoding,
    servers: serverSummaries(servers, tools),
    tools: tools.length,
    tokens: {
      // sums of the per-tool counts the CLI stored (the Worker never loads a tokenizer)
      ...tokenSums(tools),
      // the system section of each listing form (names, grouped, servers, none), for the tools that are not alwaysLoad
      listing: cat.catalog.listing.sections,
    },
  });
}

async function catalogTools(c: RouteContext): Promise<Response> {
  const cat = await pinned(c);
  return json({ label: cat.label, tools: toolRows(cat.catalog.tools) });
}

async function policyPreview(c: RouteContext): Promise<Response> {
  const req = parsePolicyQuery(c.url.searchParams);
  const cat = await pinned(c);
  // the same decision POST /v1/sessions freezes, for the same fields; nothing is stored
  const frozen = freezeSession(cat.catalog, settings(c.env).policy, req);
  const core = new Set(frozen.coreTools);
  return json({
    ...req,
    mode: frozen.mode,
    reason: frozen.reason,
    coreTools: frozen.coreTools,
    deferredTools: frozen.mode === "deferred" ? cat.catalog.tools.filter((t) => !core.has(t.name)).length : 0,
  });
}

export const catalogRoutes = [route("GET", "/v1/catalog", catalogInfo), route("GET", "/v1/catalog/tools", catalogTools), route("GET", "/v1/catalog/policy", policyPreview)];
