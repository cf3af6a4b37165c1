// DOM helpers for the page: build elements from data (text always as text nodes, never parsed as
// HTML: tool descriptions come from MCP servers), and the number formats every view shares.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

const SVG_NS = "http://www.w3.org/2000/svg";

function fill(el: Element, attrs: Attrs, children: Child[]): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

/** An HTML element: `h("button", { type: "button", onclick }, "Go")`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  fill(el, attrs, children);
  return el;
}

/** An SVG element (charts). */
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  fill(el, attrs, children);
  return el;
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  fill(parent, {}, children);
}

const INT = new Intl.NumberFormat("en-US");

/** 65459 -> "65,459" (the same digits as the CLI's JSON, grouped). */
export const int = (n: number): string => INT.format(n);

/** A time as an offset from a session's creation: `+12 ms`, `+3.4 s`, `+2.5 min`. */
export const offset = (ms: number): string =>
  ms < 1000 ? `+${Math.round(ms)} ms` : ms < 120_000 ? `+${(ms / 1000).toFixed(1)} s` : `+${(ms / 60_000).toFixed(1)} min`;

export const percent = (ratio: number): string => `${(ratio * 100).toFixed(1)}%`;

export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** A labelled field: the label's `for` names the control, so every input has an accessible name. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLElement {
  const hintEl = hint ? h("small", { id: `${control.id}-hint`, class: "hint" }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hintEl);
}

/** A table from a header row and body rows of cells. */
export function table(caption: string, head: Child[], rows: Child[][], attrs: Attrs = {}): HTMLTableElement {
  return h(
    "table",
    attrs,
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))),
  );
}
