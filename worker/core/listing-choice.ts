// Which listing form a deferred session gets. `auto` takes the richest form whose section fits the
// listing budget (POLICY.listingBudget of the model's context window); `none` is the floor. A
// session's `listing` (or else its profile's) forces a form. Sizes are sums of the catalog's
// stored token pieces (listing.ts), so the Worker decides without a tokenizer, for any subset.

import type { Catalog, CatalogTool } from "./catalog.ts";
import {
  LISTING_FORMS,
  listingSection,
  listingSizes,
  serverEntries,
  toolEntries,
  type ListingForm,
  type ListingRequest,
} from "./listing.ts";
import { contextWindow, resolveProfile, type PolicyConfig } from "./policy.ts";

export interface ListingBudget {
  tokens: number;
  /** how the reason names it: `2% of gpt-4o's 128000-token context` */
  what: string;
}

export interface ListingChoice {
  form: ListingForm;
  /** which form and why, for the session's `reason` */
  reason: string;
}

/** The auto budget of a session: POLICY.listingBudget of its model's context window, in tokens. */
export function listingBudget(policy: PolicyConfig, req: { model: string; contextWindow?: number }): ListingBudget {
  const window = contextWindow(policy, req);
  // + 1e-9: a share like 0.02 times 50,000 must give 1,000, not 999.9999999
  const tokens = Math.floor(window.tokens * policy.listingBudget + 1e-9);
  return { tokens, what: `${Number((policy.listingBudget * 100).toFixed(4))}% of ${window.of}` };
}

const list = (items: string[]) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : items[0]!);

/**
 * The form for these sizes: `requested` when it names one (`forcedBy` says who asked), else the
 * richest form whose section is at most `budget.tokens`, else `none`.
 */
export function chooseListing(
  requested: ListingRequest,
  sizes: Record<ListingForm, number>,
  budget: ListingBudget,
  forcedBy = "requested for this session",
): ListingChoice {
  if (requested !== "auto") return { form: requested, reason: `listing "${requested}" (${sizes[requested]} tokens): ${forcedBy}` };
  const limit = `the listing budget of ${budget.tokens} tokens (${budget.what})`;
  const form = LISTING_FORMS.find((f) => sizes[f] <= budget.tokens) ?? "none";
  const richer = LISTING_FORMS.slice(0, LISTING_FORMS.indexOf(form)).map((f) => `${f} (${sizes[f]})`);
  if (!richer.length) return { form, reason: `listing "${form}": ${sizes[form]} tokens fit ${limit}` };
  const over = sizes[form] > budget.tokens ? `; none is the floor, over it too` : "";
  return { form, reason: `listing "${form}" (${sizes[form]} tokens): ${list(richer)} exceed ${limit}${over}` };
}

/**
 * A deferred session's listing over its deferrable catalog tools: the form chosen for the
 * session's request and profile, why, and the section's text (frozen with the session).
 */
export function freezeListing(
  catalog: Pick<Catalog, "servers" | "listing">,
  deferrable: readonly CatalogTool[],
  policy: PolicyConfig,
  req: { model: string; profile: string; contextWindow?: number; listing?: ListingRequest },
): ListingChoice & { section: string } {
  const profile = resolveProfile(policy, req.profile);
  const requested = req.listing ?? profile.listing ?? "auto";
  const forcedBy = req.listing ? "requested for this session" : `set by profile "${req.profile}"`;
  const entries = toolEntries(deferrable);
  const servers = serverEntries(catalog.servers);
  const choice = chooseListing(requested, listingSizes(entries, servers, catalog.listing.headers), listingBudget(policy, req), forcedBy);
  return { ...choice, section: listingSection(choice.form, entries, servers) };
}
