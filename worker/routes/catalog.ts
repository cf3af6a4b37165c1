// The pinned catalog as the caller's tenant may see it now (its access rules: denied and disabled
// tools are left out, core/gate.ts): GET /v1/catalog (label, servers with their metadata and token
// sums, totals, each listing form's size), GET /v1/catalog/tools (every visible tool without its
// schemas, for the page's table) and GET /v1/catalog/policy (what a new session of the caller's tenant would
// decide for a model, without creating one).

import { loadCatalog, type LoadedCatalog } from "../catalogs.ts";
import { liveRules, visibleTools } from "../core/gate.ts";
import { settings } from "../settings.ts";
import { catalogTotals, serverSummaries, toolRows } from "../core/summary.ts";
import { json, route, type RouteContext } from "../http.ts";
import { parsePolicyQuery } from "../wire/requests.ts";
import { sessionInit } from "../session/create.ts";
import { sessionAccess } from "../core/access.ts";
import type { CatalogInfo, CatalogTools, PolicyAnswer } from "../wire/answers.ts";

const pinned = (c: RouteContext) => loadCatalog(settings(c.env).catalogFile);

/** The pinned catalog's tools the caller's tenant may see now (core/gate.ts), and their servers. */
function visible(c: RouteContext, cat: LoadedCatalog) {
  const tools = visibleTools(cat.catalog.tools, liveRules(settings(c.env).policy, c.tenant));
  if (tools === cat.catalog.tools) return { tools, servers: cat.catalog.servers };
  const used = new Set(tools.map((t) => t.server));
  return { tools, servers: cat.catalog.servers.filter((s) => used.has(s.name)) };
}

async function catalogInfo(c: RouteContext): Promise<Response> {
  const cat = await pinned(c);
  const { name, version, hash, build } = cat.catalog;
  const { tools, servers } = visible(c, cat);
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
      ...catalogTotals(tools),
      // the system section of each listing form (names, grouped, servers, none), for the tools that are not alwaysLoad
      listing: cat.catalog.listing.sections,
    },
  } satisfies CatalogInfo);
}

async function catalogTools(c: RouteContext): Promise<Response> {
  const cat = await pinned(c);
  return json({ label: cat.label, tools: toolRows(visible(c, cat).tools) } satisfies CatalogTools);
}

/**
 * What POST /v1/sessions would freeze for the caller's tenant, computed by the same sessionInit
 * (access rules, then mode, listing form and core tools), with no Durable Object created. Denied
 * tools are counted, never named: they stay invisible to the tenant here too.
 */
async function policyPreview(c: RouteContext): Promise<Response> {
  const req = parsePolicyQuery(c.url.searchParams);
  const { init, cat } = await sessionInit(c, { ...req, activation: "inject" });
  const { denied } = sessionAccess(cat.tools, init);
  const visible = cat.catalog.tools.length - denied.size;
  return json({
    ...req,
    mode: init.mode,
    reason: init.reason,
    listing: init.listing ?? null,
    coreTools: init.coreTools,
    // core tools are among the visible ones (the session froze over the tenant's view)
    deferredTools: init.mode === "deferred" ? visible - init.coreTools.length : 0,
    access: {
      rules: init.access?.source ?? "default",
      catalogTools: cat.catalog.tools.length,
      visibleTools: visible,
      deniedTools: denied.size,
    },
  } satisfies PolicyAnswer);
}

export const catalogRoutes = [
  route("GET", "/v1/catalog", catalogInfo),
  route("GET", "/v1/catalog/tools", catalogTools),
  route("GET", "/v1/catalog/policy", policyPreview),
];
