// What the Worker's own browser forms (the connect and approval pages) check of a POST: that it
// came from the page itself, not another site (Origin, else Sec-Fetch-Site), and the cookies that
// bind it to the browser that opened the page (a CSRF token; a flow's nonce).

import { ToolsearchError } from "../core/errors.ts";
import type { RouteContext } from "../http.ts";

export function cookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, v] = part.trim().split("=");
    if (k === name && v) return v;
  }
  return null;
}

/** A cookie for the pages under `path`, Secure on https. */
export function setCookie(c: RouteContext, path: string, name: string, value: string, maxAgeS: number, sameSite: "Lax" | "Strict"): string {
  const secure = c.url.protocol === "https:" ? "; Secure" : "";
  return `${name}=${value}; Path=${path}; HttpOnly; SameSite=${sameSite}; Max-Age=${Math.round(maxAgeS)}${secure}`;
}

/** The form came from this Worker's page, in this browser: not from another site (the cross-site half of R2-H1). */
export function sameOrigin(c: RouteContext): void {
  const origin = c.request.headers.get("origin");
  const ok = origin !== null ? origin === c.url.origin : c.request.headers.get("sec-fetch-site") === "same-origin";
  if (!ok) throw new ToolsearchError("forbidden", "this form was sent from another site; open the link yourself and use its own button");
}
