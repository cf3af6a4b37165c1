// The policy decision for a model the user types: GET /v1/catalog/policy computes what POST
// /v1/sessions would freeze for this key's tenant (its access rules applied first): deferred or
// full and why, the listing form and why, and how many of the catalog's tools the tenant sees.

import type { PolicyAnswer } from "../wire/answers.ts";
import { api, ApiError } from "./api.ts";
import { field, h, int, replace } from "./dom.ts";

/** A deferred session's reason is the mode's, then `; listing "<form>" ...` (worker/core/frozen.ts). */
export function splitReason(reason: string): { mode: string; listing: string | null } {
  const at = reason.lastIndexOf('; listing "');
  return at < 0 ? { mode: reason, listing: null } : { mode: reason.slice(0, at), listing: reason.slice(at + 2) };
}

function decision(d: PolicyAnswer): HTMLElement[] {
  const why = splitReason(d.reason);
  const { catalogTools, visibleTools, deniedTools, rules } = d.access;
  const seen = deniedTools
    ? `${int(visibleTools)} of ${int(catalogTools)} tools (${int(deniedTools)} hidden by the access rules of ${rules})`
    : `all ${int(catalogTools)} tools (access rules: ${rules})`;
  return [
    h(
      "span",
      {},
      "Mode: ",
      h("strong", { class: `mode mode-${d.mode}`, "data-mode": d.mode }, d.mode),
      " — ",
      h("span", { class: "mode-reason" }, why.mode),
    ),
    h("br"),
    h(
      "span",
      {},
      "Listing: ",
      h("strong", { "data-listing": d.listing ?? "" }, d.listing ?? "—"),
      " — ",
      h("span", { class: "listing-reason" }, why.listing ?? "full mode lists nothing: every tool is injected"),
    ),
    h("br"),
    h(
      "small",
      { class: "view-counts" },
      `This key's tenant sees ${seen}. `,
      d.mode === "deferred"
        ? `${int(d.deferredTools)} deferred; ${int(d.coreTools.length)} core tools always loaded.`
        : `${int(d.coreTools.length)} tools injected, no toolSearch.`,
    ),
  ];
}

export function policyForm(onError: (e: ApiError) => void): HTMLElement {
  const model = h("input", { id: "policy-model", type: "text", required: true, autocomplete: "off", value: "gpt-4o", spellcheck: "false" });
  const profile = h("input", { id: "policy-profile", type: "text", autocomplete: "off", value: "default", spellcheck: "false" });
  const deferral = h("select", { id: "policy-deferral" }, ...["auto", "on", "off"].map((d) => h("option", { value: d }, d)));
  // "" sends no listing, so a profile's own form applies (listing=auto would override it)
  const listing = h(
    "select",
    { id: "policy-listing" },
    h("option", { value: "" }, "profile's, else auto"),
    ...["auto", "names", "grouped", "servers", "none"].map((f) => h("option", { value: f }, f)),
  );
  const windowInput = h("input", { id: "policy-window", type: "number", min: 1000, step: 1000, inputmode: "numeric" });
  const result = h("output", { id: "policy-result", for: "policy-model", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "policy", "aria-labelledby": "policy-heading" },
    h("h3", { id: "policy-heading" }, "Policy for a model"),
    h(
      "div",
      { class: "controls" },
      field("Model", model),
      field("Profile", profile),
      field("Deferral", deferral),
      field("Listing", listing),
      field("Context window", windowInput, "tokens; empty: the model's own"),
    ),
    h("button", { type: "submit" }, "Decide"),
    result,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ model: model.value.trim(), profile: profile.value.trim() || "default", deferral: deferral.value });
    if (listing.value) q.set("listing", listing.value);
    if (windowInput.value) q.set("contextWindow", windowInput.value);
    replace(result, "Deciding…");
    try {
      replace(result, ...decision(await api<PolicyAnswer>(`/v1/catalog/policy?${q}`)));
    } catch (err) {
      replace(result);
      if (err instanceof ApiError) onError(err);
      else throw err;
    }
  });
  return form;
}
