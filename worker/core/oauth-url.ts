// Which URLs an OAuth step may reach, and when two authorization-server identifiers are the same
// one. Pure: SERVERS parsing (servers.ts: a configured `issuer`) and the Worker's OAuth fetches
// (accounts/oauth-fetch.ts, accounts/issuer-pin.ts) share it, so config and use cannot disagree.

/** 127.0.0.0/8, ::1 and localhost: the hosts an OAuth URL may reach over plain http (a local setup, the tests). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]") return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return !!v4 && v4.slice(1).every((n) => Number(n) <= 255);
}

/** https anywhere; http only to a loopback host (OAuth 2.1 section 1.5: tokens and codes never cross a network in clear). */
export function secureOrLoopback(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/**
 * Two issuer identifiers name the same authorization server: equal as parsed URLs, one trailing
 * `/` aside (`String(new URL(...))` adds one, metadata often has none; the SDK compares the same way).
 */
export function sameIssuer(a: string, b: string): boolean {
  let [x, y] = [a, b];
  try {
    [x, y] = [new URL(a).href, new URL(b).href];
  } catch {
    // not both URLs: compared as written
  }
  const trim = (s: string) => (s.endsWith("/") ? s.slice(0, -1) : s);
  return trim(x) === trim(y);
}
