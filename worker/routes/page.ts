// GET / and GET /page/<file>: the page (worker/page/, bundled at build time into the assets
// directory's page/ folder). Only these names are read from ASSETS here, so catalog files stay
// private (run_worker_first sends every request through the Worker). The page itself is public;
// everything it shows comes from /v1 with the key the user pastes.

import { ToolsearchError } from "../core/errors.ts";
import { param, route, type RouteContext } from "../http.ts";

const FILES: Record<string, string> = { "": "index.html", "page.js": "page.js", "page.css": "page.css" };

// the page loads only its own script and style, and talks only to this origin
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

async function serve(c: RouteContext, name: string): Promise<Response> {
  // own keys only: `constructor` must not be a prototype lookup
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) throw new ToolsearchError("not_found", `no page file ${name.slice(0, 80)}`);
  // html_handling = "none" (wrangler.toml): the asset path is taken literally
  const res = await c.env.ASSETS.fetch(new Request(`https://assets.invalid/page/${file}`, { headers: c.request.headers }));
  if (res.status === 404)
    throw new ToolsearchError(
      "unavailable",
      "the page is not built: wrangler runs its [build] command (npm run build:page) before dev and deploy",
    );
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) headers.set(k, v);
  return new Response(c.request.method === "HEAD" ? null : res.body, { status: res.status, headers });
}

export const pageRoutes = [route("GET", "/", (c) => serve(c, "")), route("GET", "/page/:file", (c) => serve(c, param(c, "file")))];
