// Entry of the page served at GET /: the API key form, the three views (catalog, search
// playground, session) chosen by the URL's hash, and the one place errors are shown (an alert
// region: a refused key says so and asks for another).

import "./page.css";
import { api, ApiError, apiKey } from "./api.ts";
import type { CatalogInfo, CatalogTools } from "../wire/answers.ts";
import { catalogView, viewFromApi } from "./catalog-view.ts";
import { approvalsPanel } from "./approvals-panel.ts";
import { connectionsPanel } from "./connections-panel.ts";
import { h, replace } from "./dom.ts";
import { policyForm } from "./policy-view.ts";
import { searchView } from "./search-view.ts";
import { sessionView } from "./session-view.ts";
import type { CatalogView } from "./types.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const keyForm = $<HTMLFormElement>("key-form");
const keyInput = $<HTMLInputElement>("api-key");
const keyState = $<HTMLElement>("key-state");
const message = $<HTMLElement>("message");
const view = $<HTMLElement>("view");
const pinned = $<HTMLElement>("pinned");

let catalog: Promise<CatalogView> | null = null;

function showError(e: ApiError): void {
  message.textContent = e.message;
  message.hidden = false;
  if (e.status === 401) {
    // a refused key is not kept: the next attempt starts from the form
    apiKey.clear();
    catalog = null;
    showKeyState();
    keyInput.focus();
  }
}

function showKeyState(): void {
  keyState.textContent = apiKey.get()
    ? "A key is set for this tab (sessionStorage; closing the tab forgets it)."
    : "No key yet: views need one.";
}

function loadCatalog(): Promise<CatalogView> {
  if (catalog) return catalog;
  const loading = Promise.all([api<CatalogInfo>("/v1/catalog"), api<CatalogTools>("/v1/catalog/tools")]).then(([info, list]) => {
    pinned.textContent = info.label;
    return viewFromApi(info, list.tools);
  });
  catalog = loading;
  // a failed load is not kept: the next view asks again
  loading.catch(() => catalog === loading && (catalog = null));
  return loading;
}

async function render(): Promise<void> {
  const hash = location.hash.replace(/^#/, "");
  const [name, arg = ""] = hash.split("=", 2) as [string, string?];
  const current = ["search", "session"].includes(name) ? name : "catalog";
  for (const a of document.querySelectorAll<HTMLAnchorElement>("nav a")) {
    if (a.dataset.view === current) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (!apiKey.get()) {
    replace(view, h("p", { class: "empty" }, "Paste an API key above to see the catalog, search it, and open sessions."));
    return;
  }
  // every view shows the pinned label, so a refused key shows at once, whatever the view
  const cat = loadCatalog();
  message.hidden = true;
  try {
    if (current === "search") replace(view, searchView(showError));
    else if (current === "session") replace(view, sessionView(decodeURIComponent(arg), showError));
    else replace(view, h("p", {}, "Loading the catalog…"));
    const loaded = await cat;
    if (current === "catalog")
      replace(view, approvalsPanel(showError), catalogView(loaded, policyForm(showError)), connectionsPanel(showError));
  } catch (e) {
    replace(view);
    if (e instanceof ApiError) showError(e);
    else throw e;
  }
}

keyForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const key = keyInput.value.trim();
  if (!key) return keyInput.focus();
  apiKey.set(key);
  keyInput.value = "";
  catalog = null;
  message.hidden = true;
  showKeyState();
  void render();
});

$<HTMLButtonElement>("forget-key").addEventListener("click", () => {
  // the key and the scratch session of this tab: all the page keeps
  sessionStorage.clear();
  catalog = null;
  pinned.textContent = "";
  showKeyState();
  void render();
});

window.addEventListener("hashchange", () => void render());
showKeyState();
void render();
if (!apiKey.get()) keyInput.focus();
