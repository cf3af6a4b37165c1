// Token figures of a catalog: full injection (every tool in OpenAI `tools` form) against the
// deferred prompt (the names section + toolSearch + always-loaded core tools), tokenized exactly
// with the catalog's own encoding, plus tools per server and the largest tools.

import type { Catalog, Encoding } from "../../worker/core/catalog.ts";
import { deferredSection, openaiTool, promptTools, toolDefinition, toolsBytes } from "../../worker/core/prompt.ts";
import { deferredNames } from "./diff.ts";
import { tokenCounter } from "./tokens.ts";

export interface CatalogStats {
  name: string;
  version: string;
  hash: string;
  encoding: string;
  tools: number;
  servers: number;
  perServer: Array<{ name: string; tools: number; transport: string }>;
  tokens: {
    full: number;
    deferred: number;
    ratio: number;
    /** of `deferred`: the names section alone, and its cost per deferred tool */
    namesSection: number;
    perDeferredTool: number;
    coreTools: number;
  };
  largest: Array<{ name: string; tokens: number }>;
}

/** Token figures with the catalog's own encoding, or another one (`encoding`) for comparison. */
export async function catalogStats(catalog: Catalog, encoding: Encoding = catalog.build.encoding): Promise<CatalogStats> {
  const count = await tokenCounter(encoding);
  const core = catalog.tools.filter((t) => t.alwaysLoad).map(toolDefinition);
  const names = deferredNames(catalog);
  const full = count(toolsBytes(catalog.tools.map((t) => openaiTool(toolDefinition(t)))));
  const namesSection = names.length ? count(deferredSection(names)) : 0;
  const deferredTools = promptTools({ systemSection: "", coreTools: core, withToolSearch: names.length > 0, activated: [] });
  const deferred = namesSection + count(toolsBytes(deferredTools.map(openaiTool)));
  return {
    name: catalog.name,
    version: catalog.version,
    hash: catalog.hash,
    encoding,
    tools: catalog.tools.length,
    servers: catalog.servers.length,
    perServer: catalog.servers.map((s) => ({ name: s.name, tools: s.tools, transport: s.transport })),
    tokens: {
      full,
      deferred,
      ratio: full ? deferred / full : 0,
      namesSection,
      perDeferredTool: names.length ? namesSection / names.length : 0,
      coreTools: core.length,
    },
    largest: [...catalog.tools]
      .sort((a, b) => b.tokens.definition - a.tokens.definition || (a.name < b.name ? -1 : 1))
      .slice(0, 10)
      .map((t) => ({ name: t.name, tokens: t.tokens.definition })),
  };
}
