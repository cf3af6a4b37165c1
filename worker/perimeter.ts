// The perimeter every request crosses first (worker/index.ts), before the key check: the Host it
// was sent to and, on /v1 and /mcp, the browser Origin it came from. Both defend against DNS
// rebinding: a page whose domain is re-pointed to 127.0.0.1 is same-origin with a local `npm start`
// and sends Host and Origin of its own domain. So only ALLOWED_HOSTS (the deployment's hostnames)
// and loopback names are served: Cloudflare routes a deployed Worker only its own hostnames, so a
// loopback Host reaches only a local one. A present Origin must be the Worker's own (its Host is
// checked by then), a loopback one (a local page cannot rebind a remote host) or one
// MCP_ALLOWED_ORIGINS names; no Origin is not a browser. Refusals are ToolsearchErrors (403), which
// the one handler renders in the route's shape (JSON-RPC on /mcp, Anthropic's on /v1/messages).

import { ToolsearchError } from "./core/errors.ts";
import type { Settings } from "./settings.ts";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** The request's Host must be one of the deployment's hostnames or a loopback name. */
export function checkHost(url: URL, s: Pick<Settings, "allowedHosts">): void {
  const host = url.hostname.toLowerCase();
  if (LOOPBACK_HOSTS.has(host) || s.allowedHosts.has(host)) return;
  throw new ToolsearchError("forbidden", `Forbidden: Host ${host.slice(0, 100)} is not served here (ALLOWED_HOSTS)`);
}

/** A present Origin must be the Worker's own, a loopback one, or one MCP_ALLOWED_ORIGINS names. */
export function checkOrigin(request: Request, url: URL, s: Pick<Settings, "mcpAllowedOrigins">): void {
  const origin = request.headers.get("origin");
  if (origin === null || origin === url.origin || LOOPBACK_ORIGIN.test(origin)) return;
  if (s.mcpAllowedOrigins === "*" || s.mcpAllowedOrigins.has(origin)) return;
  throw new ToolsearchError("forbidden", `Forbidden: Origin ${origin.slice(0, 100)} is not allowed (MCP_ALLOWED_ORIGINS)`);
}
