// GET /v1/catalog: the pinned catalog's name, version, hash, servers (with their metadata), tool
// count, token sums and each listing form's size for the tools that are not alwaysLoad.

import { loadCatalog } from "../catalogs.ts";
import { settings } from "../config.ts";
import { json, route, type RouteContext } from "../http.ts";

async function catalogInfo(c: RouteContext): Promise<Response> {
  const cat = await loadCatalog(c.env.ASSETS, settings(c.env).catalogFile);
  const { name, version, hash, servers, tools, build } = cat.catalog;
  const core = tools.filter((t) => t.alwaysLoad);
  const deferred = tools.filter((t) => !t.alwaysLoad);
  const sum = (list: typeof tools, key: "definition" | "name") => list.reduce((n, t) => n + t.tokens[key], 0);
  return json({
    name,
    version,
    hash,
    file: cat.file,
    encoding: build.encoding,
    servers: servers.map((s) => ({ name: s.name, transport: s.transport, tools: s.tools, serverInfo: s.serverInfo, title: s.title, description: s.description, summary: s.summary })),
    tools: tools.length,
    tokens: {
      // sums of the per-tool counts the CLI stored (the Worker never loads a tokenizer)
      fullInjection: sum(tools, "definition"),
      deferredNames: sum(deferred, "name"),
      coreTools: sum(core, "definition"),
      // the system section of each listing form (names, grouped, servers, none)
      listing: cat.catalog.listing.sections,
    },
  });
}

export const catalogRoutes = [route("GET", "/v1/catalog", catalogInfo)];
