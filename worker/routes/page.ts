// GET / and GET /page/<file>: the page (worker/page/, built into the Worker's bundle with the
// catalog files: worker/files.ts). Only these three names are served; catalog files are never
// answered by any route. The page itself is public; everything it shows comes from /v1 with the
// key the user pastes. Each file has a strong ETag, so a browser's revalidation is a 304.

import { ToolsearchError } from "../core/errors.ts";
import { pageFile } from "../files.ts";
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
  const page = pageFile(file);
  if (!page)
    throw new ToolsearchError(
      "unavailable",
      "the page is not built: wrangler runs its [build] command (npm run build:files) before dev and deploy",
    );
  const headers = { ...SECURITY_HEADERS, "content-type": page.type, etag: page.etag, "cache-control": "no-cache" };
  const matches = (c.request.headers.get("if-none-match") ?? "").split(",").some((t) => t.trim() === page.etag || t.trim() === "*");
  if (matches) return new Response(null, { status: 304, headers });
  return new Response(c.request.method === "HEAD" ? null : page.body, { status: 200, headers });
}

export const pageRoutes = [route("GET", "/", (c) => serve(c, "")), route("GET", "/page/:file", (c) => serve(c, param(c, "file")))];
