// The short pages a browser sees while connecting an account: "connected; go back to your agent",
// or why a link or callback was refused. No script, nothing from the request but escaped text.

import type { ToolsearchError } from "../core/errors.ts";

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function connectPage(status: number, title: string, text: string, headers: Record<string, string> = {}): Response {
  const body = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title>
<body style="font:16px system-ui,sans-serif;max-width:36em;margin:4em auto;padding:0 1em"><h1>${escape(title)}</h1><p>${escape(text)}</p></body>`;
  return new Response(body, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "referrer-policy": "no-referrer", ...headers },
  });
}

/** A refused link or callback as a page (the route's onError: worker/index.ts still decides the error). */
export function pageError(err: ToolsearchError): Response {
  const title = err.status >= 500 ? "Could not connect" : "This link does not work";
  return connectPage(err.status, title, err.status === 500 ? "internal error; the Worker's log says more" : err.message);
}
