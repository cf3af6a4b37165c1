// What the Worker's own browser forms (the connect and approval pages) check of a POST: that it
// came from the page itself, not another site (Origin, else Sec-Fetch-Site), and the cookies that
// bind it to the browser that opened the page (a CSRF token; a flow's nonce), and the key that
// proves the browser is the link's principal (counted against that key's quota of requests).

import type { Principal } from "../accounts/principal-names.ts";
import { keyActingAs, type Caller } from "../auth.ts";
import { ToolsearchError } from "../core/errors.ts";
import { readBytes, type RouteContext } from "../http.ts";
import { admit } from "../session/quota-client.ts";

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

/**
 * A page's form POST, checked: from this site, with the page's CSRF cookie, and a key acting as
 * `principal` (`userless`: the principal may be a tenant's own). The form parsed, and its caller.
 */
export async function pageForm<F extends { key: string; csrf: string }>(
  c: RouteContext,
  o: { cookie: string; parse: (body: Uint8Array) => F; principal: Principal; userless?: boolean },
): Promise<{ form: F; caller: Caller }> {
  sameOrigin(c);
  const form = o.parse(await readBytes(c.request, 4096));
  if (cookie(c.request, o.cookie) !== form.csrf)
    throw new ToolsearchError("forbidden", "this page was opened in another browser or has expired; open the link again");
  const caller = await keyActingAs(form.key.trim(), o.principal, c.env.API_KEYS, o.userless);
  await admit({ env: c.env, ...caller }, "requests");
  return { form, caller };
}
