// The search playground: toolSearch on a scratch session (created on the first search, deferred
// mode), exactly as a model's call is answered. Shows the ranked results with their scores, the
// query words each matched and the index fields they matched in (search text among them), what
// was loaded, the text the model reads, and the round trip.

import type { CreatedSession, SearchAnswer } from "../wire/answers.ts";
import { api, ApiError } from "./api.ts";
import { field, h, int, replace } from "./dom.ts";

const EXAMPLES = ["browser screenshot", "+issue github", "mcp__memory", "select:mcp__github__create_issue"];
const SCRATCH = "toolsearch.scratchSession";
/** the index fields (core/search-text.ts) as the playground names them: which one matched says why a tool was found */
const FIELD_LABELS: Record<string, string> = {
  name: "name",
  server: "server",
  description: "description",
  params: "parameters",
  queries: "search text: example requests",
  keywords: "search text: keywords",
};

async function scratchSession(): Promise<string> {
  const known = sessionStorage.getItem(SCRATCH);
  if (known) return known;
  const s = await api<CreatedSession>("/v1/sessions", { method: "POST", body: { model: "playground", deferral: "on" } });
  sessionStorage.setItem(SCRATCH, s.id);
  return s.id;
}

export function searchView(onError: (e: ApiError) => void): HTMLElement {
  const query = h("input", {
    id: "search-query",
    type: "search",
    required: true,
    maxlength: 1000,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "keywords, +word, mcp__server or select:name",
  });
  const limit = h("input", { id: "search-limit", type: "number", min: 1, max: 20, value: 5, inputmode: "numeric" });
  const status = h("p", { id: "search-status", class: "status", "aria-live": "polite" });
  const results = h("ol", { id: "search-results", class: "results" });
  const modelText = h("pre", { id: "search-text" });
  const session = h("p", { class: "scratch" });

  function showSession(id: string | null): void {
    replace(
      session,
      id
        ? h(
            "span",
            {},
            "Scratch session ",
            h("a", { href: `#session=${id}` }, h("code", {}, id)),
            " (deferred; every search loads tools into it). ",
          )
        : "A scratch session is created on the first search. ",
      h("button", { type: "button", onclick: () => (sessionStorage.removeItem(SCRATCH), showSession(null)) }, "New scratch session"),
    );
  }

  const form = h(
    "form",
    { class: "search", role: "search", "aria-labelledby": "search-heading" },
    h(
      "div",
      { class: "controls" },
      field(
        "Query",
        query,
        "toolSearch syntax: keywords; +word requires a word; mcp__<server> limits to a server; select:a,b loads exact names",
      ),
      field("Limit", limit),
    ),
    h("button", { type: "submit" }, "Search"),
    h(
      "p",
      { class: "examples" },
      "Try: ",
      ...EXAMPLES.map((q) =>
        h("button", { type: "button", class: "example", onclick: () => ((query.value = q), form.requestSubmit()) }, q),
      ),
    ),
  );

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    replace(status, "Searching…");
    try {
      const body = { query: query.value, limit: Number(limit.value) || 5 };
      const run = async () => {
        const id = await scratchSession();
        showSession(id);
        const started = performance.now();
        const answer = await api<SearchAnswer>(`/v1/sessions/${encodeURIComponent(id)}/tool-search`, { method: "POST", body });
        return { a: answer, ms: performance.now() - started };
      };
      // an expired or deleted scratch session: start another, once
      const { a, ms } = await run().catch((err: unknown) => {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
        sessionStorage.removeItem(SCRATCH);
        return run();
      });
      const loaded = new Set(a.loaded);
      replace(
        status,
        `${int(a.matches.length)} result${a.matches.length === 1 ? "" : "s"} in `,
        h("span", { "data-ms": ms.toFixed(1) }, `${ms.toFixed(0)} ms`),
        " (round trip: the Worker ranks, the session records the activation).",
      );
      replace(
        results,
        ...a.matches.map((m, i) =>
          h(
            "li",
            { "data-name": m.name, "data-score": m.score },
            h("span", { class: "rank" }, `${i + 1}.`),
            h("code", { class: "name" }, m.name),
            h("span", { class: "score" }, `score ${m.score.toFixed(3)}`),
            h("span", { class: `state ${loaded.has(m.name) ? "loaded" : "already"}` }, loaded.has(m.name) ? "loaded" : "already loaded"),
            m.words.length
              ? h("span", { class: "words", "aria-label": "matched words" }, ...m.words.map((w) => h("span", { class: "word" }, w)))
              : null,
            m.fields.length
              ? h("span", { class: "fields", "aria-label": "matched fields" }, `in ${m.fields.map((f) => FIELD_LABELS[f] ?? f).join(", ")}`)
              : null,
            h("p", { class: "desc" }, m.description),
          ),
        ),
      );
      modelText.textContent = a.result;
    } catch (err) {
      replace(status);
      if (err instanceof ApiError) onError(err);
      else throw err;
    }
  });

  showSession(sessionStorage.getItem(SCRATCH));
  return h(
    "section",
    { class: "search-view", "aria-labelledby": "search-heading" },
    h("h2", { id: "search-heading" }, "Search playground"),
    session,
    form,
    status,
    results,
    h("details", {}, h("summary", {}, "What the model reads"), modelText),
  );
}
