// Entry of the self-contained files the CLI writes (`catalog stats --html`, `catalog diff --html`):
// the data is embedded in script#toolsearch-data; nothing is fetched.

import "./page.css";
import { catalogView } from "./catalog-view.ts";
import { diffView } from "./diff-view.ts";
import type { OfflineData } from "./types.ts";

const data = JSON.parse(document.getElementById("toolsearch-data")!.textContent!) as OfflineData;
const main = document.querySelector("main")!;
main.append(data.kind === "catalog" ? catalogView(data.view) : diffView(data.view));
