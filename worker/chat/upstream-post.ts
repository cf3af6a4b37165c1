// One POST to a model upstream (Chat Completions or Messages), retried the way the vendors' SDKs
// retry: a network failure, an attempt that gets no answer within `timeoutMs`, and the statuses
// 408, 409, 429 and 5xx (unless the upstream says `x-should-retry: false`; `true` retries any) are
// tried again up to `maxRetries` times, after `retry-after-ms` or `retry-after` when the upstream
// gives one under a minute, else after 0.5 s doubling to 8 s, less up to 25% jitter. What is left:
// a 2xx is the answer; a redirect is refused (the key is not sent after it); a 401 or 403 is the
// deployment's key refused (a 502, never the caller's 401); another 4xx passes through as the
// surface's rejection; the rest is a 502 naming the status. Every upstream text is redacted of the
// key. `timeoutMs` bounds each attempt until its answer's headers; the caller's signal (the client
// going away, the call's overall deadline) bounds everything, waits included.

import { ToolsearchError } from "../core/errors.ts";

export interface UpstreamConfig {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
}

export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** the setting that holds the key, named when the upstream refuses it */
  keyName: string;
  /** an upstream 4xx as the client's error, from its `error` object (redacted); undefined when the answer was not JSON */
  rejection(status: number, error: Record<string, unknown> | undefined, text: string): ToolsearchError;
}

/** `text` with every occurrence of the deployment's key replaced (an upstream error may quote it). */
export function redactKey(text: string, key: string): string {
  return key.length >= 4 ? text.split(key).join("[redacted]") : text;
}

/** The upstream refused the deployment's own credentials: its fault, a 502, not the caller's 401. */
export function refusedKey(status: number, name: string): ToolsearchError {
  return new ToolsearchError("upstream_error", `the upstream refused this deployment's key (HTTP ${status}): check ${name}`);
}

/** the longest wait between two attempts when the upstream names none */
export const MAX_BACKOFF_MS = 8_000;
/** the most bytes read of an upstream error answer: its message is all that is used */
const ERROR_MAX_BYTES = 64 * 1024;

const gone = () => new ToolsearchError("upstream_error", "the client went away; the upstream call was aborted", 499);

function retryable(res: Response): boolean {
  const says = res.headers.get("x-should-retry");
  if (says === "true" || says === "false") return says === "true";
  return res.status === 408 || res.status === 409 || res.status === 429 || res.status >= 500;
}

/** How long to wait before attempt `n + 1` (n counts from 0), as the SDKs compute it. */
export function retryDelayMs(n: number, headers?: Headers): number {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  const after = headers?.get("retry-after");
  const secs = after ? Number.parseFloat(after) : Number.NaN;
  const asked = !Number.isNaN(ms) ? ms : !Number.isNaN(secs) ? secs * 1000 : after ? Date.parse(after) - Date.now() : Number.NaN;
  if (Number.isFinite(asked) && asked >= 0 && asked <= 60_000) return asked;
  return Math.min(500 * 2 ** n, MAX_BACKOFF_MS) * (1 - Math.random() * 0.25);
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => (signal.removeEventListener("abort", stop), resolve()), ms);
    const stop = () => (clearTimeout(t), reject(signal.reason));
    signal.addEventListener("abort", stop, { once: true });
  });

/** An error answer's text, read to ERROR_MAX_BYTES at most ("" past that: the status says enough). */
async function errorText(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      seen += value.byteLength;
      if (seen > ERROR_MAX_BYTES) return (await reader.cancel(), "");
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return "";
  }
}

/** POST `req` with the retries above; the 2xx answer, its body unread. */
export async function postUpstream(cfg: UpstreamConfig, req: UpstreamRequest, signal: AbortSignal): Promise<Response> {
  const tries = (n: number) => `tried ${n + 1} time${n ? "s" : ""}`;
  for (let n = 0; ; n++) {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), cfg.timeoutMs);
    let res: Response;
    try {
      res = await fetch(req.url, {
        method: "POST",
        headers: req.headers,
        body: req.body,
        signal: AbortSignal.any([signal, timeout.signal]),
        redirect: "manual",
      });
    } catch (e) {
      if (signal.aborted) throw gone();
      if (n < cfg.maxRetries) {
        await wait(retryDelayMs(n), signal).catch(() => Promise.reject(gone()));
        continue;
      }
      throw new ToolsearchError(
        "upstream_error",
        timeout.signal.aborted
          ? `upstream did not answer within ${cfg.timeoutMs} ms (${tries(n)})`
          : `could not reach upstream at ${cfg.baseURL} (${tries(n)}): ${redactKey((e as Error).message, cfg.apiKey).slice(0, 200)}`,
      );
    } finally {
      clearTimeout(timer);
    }
    if (res.ok) return res;
    if (n < cfg.maxRetries && retryable(res)) {
      await res.body?.cancel();
      await wait(retryDelayMs(n, res.headers), signal).catch(() => Promise.reject(gone()));
      continue;
    }
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw new ToolsearchError("upstream_error", `upstream answered a redirect (HTTP ${res.status}); the key is not sent after it`);
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw refusedKey(res.status, req.keyName);
    }
    const text = redactKey(await errorText(res), cfg.apiKey);
    let error: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(text) as { error?: unknown };
      error = parsed.error && typeof parsed.error === "object" ? (parsed.error as Record<string, unknown>) : {};
    } catch {
      /* not JSON: the status and the text say enough */
    }
    if (res.status >= 400 && res.status < 500) throw req.rejection(res.status, error, text);
    const said = typeof error?.message === "string" ? error.message : text || "no body";
    throw new ToolsearchError("upstream_error", `upstream answered ${res.status} (${tries(n)}): ${said.slice(0, 300)}`);
  }
}
