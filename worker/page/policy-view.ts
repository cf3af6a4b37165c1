// The policy decision for a model the user types: GET /v1/catalog/policy decides exactly as
// POST /v1/sessions would (deferred or full, and why) without creating a session.

import { api, ApiError } from "./api.ts";
import { field, h, int, replace } from "./dom.ts";

interface PolicyAnswer {
  model: string;
  profile: string;
  deferral: string;
  mode: "deferred" | "full";
  reason: string;
  coreTools: string[];
  deferredTools: number;
}

export function policyForm(onError: (e: ApiError) => void): HTMLElement {
  const model = h("input", { id: "policy-model", type: "text", required: true, autocomplete: "off", value: "gpt-4o", spellcheck: "false" });
  const profile = h("input", { id: "policy-profile", type: "text", autocomplete: "off", value: "default", spellcheck: "false" });
  const deferral = h("select", { id: "policy-deferral" }, ...["auto", "on", "off"].map((d) => h("option", { value: d }, d)));
  const windowInput = h("input", { id: "policy-window", type: "number", min: 1000, step: 1000, inputmode: "numeric" });
  const result = h("output", { id: "policy-result", for: "policy-model", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "policy", "aria-labelledby": "policy-heading" },
    h("h3", { id: "policy-heading" }, "Policy for a model"),
    h("div", { class: "controls" }, field("Model", model), field("Profile", profile), field("Deferral", deferral), field("Context window", windowInput, "tokens; empty: the model's own")),
    h("button", { type: "submit" }, "Decide"),
    result,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = new URLSearchParams({ model: model.value.trim(), profile: profile.value.trim() || "default", deferral: deferral.value });
    if (windowInput.value) q.set("contextWindow", windowInput.value);
    replace(result, "Deciding…");
    try {
      const d = await api<PolicyAnswer>(`/v1/catalog/policy?${q}`);
      replace(
        result,
        h("strong", { class: `mode mode-${d.mode}`, "data-mode": d.mode }, d.mode),
        " — ",
        h("span", { class: "reason" }, d.reason),
        h("br"),
        h("small", {}, d.mode === "deferred" ? `${int(d.deferredTools)} tools deferred; ${int(d.coreTools.length)} core tools always loaded.` : `${int(d.coreTools.length)} tools injected, no toolSearch.`),
      );
    } catch (err) {
      replace(result);
      if (err instanceof ApiError) onError(err);
      else throw err;
    }
  });
  return form;
}
