// The listing forms' token pieces, counted once at build time with the catalog's encoding (why
// they add up: worker/core/listing.ts): per tool its ` <short>` piece, per server `<label>:` and
// its `servers` line without the tool count, each form's header, and each form's whole section
// for the tools that are not alwaysLoad. The sections are also tokenized whole: a sum that
// differs from the real count (a short name ending in `-`) is a build warning.

import type { CatalogServer, CatalogTool } from "../../worker/core/catalog.ts";
import {
  groupLabel,
  LISTING_FORMS,
  listingHeader,
  listingSection,
  listingSizes,
  numberTokens,
  serverEntries,
  serverLabel,
  serverLine,
  shortName,
  shortPiece,
  toolEntries,
  type ListingForm,
  type ListingHeaders,
} from "../../worker/core/listing.ts";
import type { TokenCounter } from "./tokens.ts";

export interface ListingCounts {
  tools: CatalogTool[];
  servers: CatalogServer[];
  listing: { headers: ListingHeaders; sections: Record<ListingForm, number> };
  warnings: string[];
}

export function countListing(
  tools: ReadonlyArray<Omit<CatalogTool, "tokens"> & { tokens: { definition: number; name: number } }>,
  servers: ReadonlyArray<Omit<CatalogServer, "tokens">>,
  count: TokenCounter,
): ListingCounts {
  const counted = tools.map((t) => ({ ...t, tokens: { ...t.tokens, short: count(shortPiece(shortName(t.name, serverLabel(t.server)))) } }));
  const withTokens = servers.map((s) => ({
    ...s,
    tokens: {
      grouped: count(groupLabel(serverLabel(s.name))),
      servers: count(serverLine(serverLabel(s.name), s.tools, s.summary)) - numberTokens(s.tools),
    },
  }));
  const deferred = counted.filter((t) => !t.alwaysLoad);
  const entries = toolEntries(deferred);
  const listed = serverEntries(withTokens);
  // `none` states two numbers; its stored header leaves them out (the Worker adds their tokens)
  const groups = new Set(deferred.map((t) => t.server)).size;
  const headers: ListingHeaders = {
    names: count(listingHeader("names")),
    grouped: count(listingHeader("grouped")),
    servers: count(listingHeader("servers")),
    none: count(listingHeader("none", deferred.length, groups)) - numberTokens(deferred.length) - numberTokens(groups),
  };
  const sections = listingSizes(entries, listed, headers);
  const warnings: string[] = [];
  for (const form of LISTING_FORMS) {
    const real = count(listingSection(form, entries, listed));
    if (real !== sections[form])
      warnings.push(
        `the ${form} listing is ${real} tokens; its stored pieces add up to ${sections[form]} (a short name ending in punctuation)`,
      );
  }
  return { tools: counted, servers: withTokens, listing: { headers, sections }, warnings };
}
