// The pages a browser sees while connecting an account: the confirmation page a connect link
// opens (it names the deployment, the server and the account, and asks for the principal's key
// before anything starts), "connected; go back to your agent", or why a link or callback was
// refused. No script, nothing from the request but escaped text, and no framing (clickjacking).

import type { ToolsearchError } from "../core/errors.ts";

export const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  // not no-referrer: under it Chromium sends `Origin: null` with the form, which the POST must refuse
  "referrer-policy": "same-origin",
  // form-action is left open on purpose: the form's answer redirects to the authorization server
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
};

/** A short page of the Worker's own (the connect and approval pages): no script, no framing. */
export function page(status: number, title: string, inner: string, headers: Record<string, string>): Response {
  const body = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title>
<body style="font:16px system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em"><h1>${escape(title)}</h1>${inner}</body>`;
  return new Response(body, { status, headers: { ...HEADERS, ...headers } });
}

export function connectPage(status: number, title: string, text: string, headers: Record<string, string> = {}): Response {
  return page(status, title, `<p>${escape(text)}</p>`, headers);
}

export interface Confirmation {
  /** the deployment, as the browser reached it */
  host: string;
  server: string;
  account: string;
  csrf: string;
}

/** GET /connect/<server>/<link>: what connecting does, and the form that starts it (same-origin POST). */
export function confirmPage(c: Confirmation, headers: Record<string, string>): Response {
  const [host, server, account] = [c.host, c.server, c.account].map(escape);
  return page(
    200,
    `Connect your ${c.server} account`,
    `<p><b>${host}</b> (toolsearch) asks to connect your account at <b>${server}</b> to <b>${account}</b>. The tools ${account} runs on ${server} will then act as you there.</p>
<p>Continue only if you asked your agent to connect and ${account} is you. Give the API key that ${account} uses (your agent's or app's key): it proves this link was made for you, and is not stored.</p>
<form method="post" data-connect><label>API key <input type="password" name="key" autocomplete="off" required></label>
<input type="hidden" name="csrf" value="${escape(c.csrf)}"> <button type="submit">Connect ${server}</button></form>`,
    headers,
  );
}

/** A refused link or callback as a page (the route's onError: worker/index.ts still decides the error). */
export function pageError(err: ToolsearchError): Response {
  const title = err.status >= 500 ? "Could not connect" : "This link does not work";
  return connectPage(err.status, title, err.status === 500 ? "internal error; the Worker's log says more" : err.message);
}
