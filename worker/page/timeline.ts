// A session's history as the session view draws it: every toolSearch on a time axis (SVG) and as
// a list (what was asked, what it loaded; a tool call that loaded its tool is logged as the query
// `call:<name>` and shown as such), the activations in order, and the stored splices (the rounds
// the chat endpoint ran that the client never saw), and the code-mode runs with their calls
// (runs.ts). Times are offsets from creation.

import type { HistoryAnswer as History } from "../wire/answers.ts";
import { h, int, offset, svg, table } from "./dom.ts";
import { runsList, type RunEntry } from "./runs.ts";

const count = (n: number, one: string, many: string) => `${int(n)} ${n === 1 ? one : many}`;

function axis(created: number, searches: History["searches"]): SVGElement {
  const W = 680;
  const span = Math.max(1, ...searches.map((s) => Date.parse(s.at) - created));
  const x = (at: string) => 20 + ((Date.parse(at) - created) / span) * (W - 40);
  return svg(
    "svg",
    {
      viewBox: `0 0 ${W} 44`,
      width: W,
      height: 44,
      class: "axis",
      role: "img",
      "aria-label": `${searches.length} searches over ${offset(span).slice(1)} (listed below)`,
    },
    svg("line", { x1: 20, x2: W - 20, y1: 18, y2: 18, class: "axis-line" }),
    svg("text", { x: 20, y: 38, class: "axis-text" }, "created"),
    svg("text", { x: W - 20, y: 38, class: "axis-text", "text-anchor": "end" }, offset(span)),
    ...searches.map((s) =>
      svg(
        "circle",
        { cx: x(s.at).toFixed(1), cy: 18, r: s.loaded.length ? 6 : 4, class: s.loaded.length ? "dot dot-loaded" : "dot" },
        svg("title", {}, `${offset(Date.parse(s.at) - created)}: ${s.query} → ${s.loaded.length ? s.loaded.join(", ") : "nothing new"}`),
      ),
    ),
  );
}

export function timeline(createdAt: string, history: History, runs: readonly RunEntry[] = []): HTMLElement {
  const created = Date.parse(createdAt);
  let searches = 0;
  const items = history.searches.map((s) => {
    // the session logs a call's load of its tool as `call:<name>` (SessionDO.activate)
    const call = s.query.startsWith("call:");
    return h(
      "li",
      { "data-query": s.query },
      h("time", { datetime: s.at, title: s.at }, offset(Date.parse(s.at) - created)),
      " ",
      call
        ? h("span", { class: "what" }, "a call of ", h("code", {}, s.query.slice(5)))
        : h("span", { class: "what" }, `toolSearch #${++searches} `, h("code", {}, s.query)),
      s.loaded.length
        ? h("ul", { class: "activated" }, ...s.loaded.map((n) => h("li", { "data-activation": n }, "loaded ", h("code", {}, n))))
        : h("p", { class: "nothing" }, call ? "loaded nothing (a refusal is in the audit trail)" : "loaded nothing new"),
    );
  });
  const calls = history.searches.length - searches;
  const order = history.activations.map((a, i) => [
    int(i + 1),
    h("code", {}, a.name),
    h("time", { datetime: a.at }, offset(Date.parse(a.at) - created)),
  ]);
  return h(
    "section",
    { class: "timeline-section", "aria-labelledby": "timeline-heading" },
    h(
      "h3",
      { id: "timeline-heading" },
      `Timeline: ${count(searches, "search", "searches")}${calls ? `, ${count(calls, "call that loaded its tool", "calls that loaded their tool")}` : ""}, ${count(history.activations.length, "activation", "activations")}${runs.length ? `, ${count(runs.length, "run", "runs")}` : ""}`,
    ),
    history.searches.length ? axis(created, history.searches) : h("p", {}, "No toolSearch yet."),
    h("ol", { class: "timeline" }, ...items),
    runsList(runs, created),
    history.activations.length
      ? table("Activations, in the order the tools array carries them", ["#", "Tool", "When"], order, { class: "activations" })
      : null,
  );
}

type Message = History["splices"][number]["hidden"][number];

function describe(m: Message): string {
  const calls = (m.tool_calls ?? []).map((c) => `${c.function?.name ?? "?"}(${(c.function?.arguments ?? "").slice(0, 80)})`);
  const text = typeof m.content === "string" ? m.content : m.content ? JSON.stringify(m.content) : "";
  return `${m.role}: ${calls.length ? calls.join(", ") : text.replace(/\s+/g, " ").slice(0, 140)}`;
}

export function splices(list: History["splices"]): HTMLElement {
  const rows = list.map((s) => [
    int(s.seq),
    `message ${s.at}`,
    h("ul", {}, ...s.hidden.map((m) => h("li", {}, describe(m)))),
    describe(s.reply.upstream),
  ]);
  return h(
    "section",
    { class: "splices-section", "aria-labelledby": "splices-heading" },
    h("h3", { id: "splices-heading" }, `Splices: ${list.length}`),
    h(
      "p",
      { class: "hint" },
      "Rounds the chat endpoint ran that its client never saw; they are put back at the same place in later requests so the upstream prompt only grows.",
    ),
    list.length
      ? table("Stored splices", ["#", "Before", "Hidden messages", "Answer as upstream gave it"], rows, { class: "splices" })
      : h("p", {}, "No splices (only the chat endpoint stores them)."),
  );
}
