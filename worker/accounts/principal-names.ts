// Names of a principal's things: its Durable Object (`principal:<tenant>/<user>`, a role of
// SessionDO beside the `<tenant>/<id>` session objects), the principal as it travels in a connect
// link and in an OAuth `state` (base64url of `<tenant>/<user>`, checked on the way back), and the
// random parts of links and flows (256 bits, base64url). A link is
// `/connect/<server>/<principal>.<secret>`; a state is `<principal>.<flow>.<tag>`, the tag signing
// the first two (sealed.ts), so a forged callback is refused before any object is addressed.

import { TENANT_RE, USER_RE, type Principal } from "../auth.ts";

export type { Principal };

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

export const PRINCIPAL_PREFIX = "principal:";

export function principalName(p: Principal): string {
  return `${PRINCIPAL_PREFIX}${p.tenant}/${p.user}`;
}

/** The principal a principal object's name holds; null for any other object (a session). */
export function principalOfName(name: string | undefined): Principal | null {
  if (!name?.startsWith(PRINCIPAL_PREFIX)) return null;
  return parse(name.slice(PRINCIPAL_PREFIX.length));
}

function parse(text: string): Principal | null {
  const at = text.indexOf("/");
  const tenant = text.slice(0, at);
  const user = text.slice(at + 1);
  if (at < 0 || !TENANT_RE.test(tenant) || (user !== "" && !USER_RE.test(user))) return null;
  return { tenant, user };
}

export function principalToken(p: Principal): string {
  return b64url(new TextEncoder().encode(`${p.tenant}/${p.user}`));
}

/** The principal of a link's or a state's first part; null when it is not one. */
export function principalFromToken(token: string): Principal | null {
  if (!/^[A-Za-z0-9_-]{1,300}$/.test(token)) return null;
  try {
    return parse(atob(token.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return null;
  }
}

export function randomToken(): string {
  return b64url(crypto.getRandomValues(new Uint8Array(32)));
}

export const LINK_PATH = "/connect/";

export function linkUrl(origin: string, server: string, p: Principal, secret: string): string {
  return `${origin}${LINK_PATH}${encodeURIComponent(server)}/${principalToken(p)}.${secret}`;
}

/** `<principal>.<secret>` (a link's last segment) split and checked. */
export function splitToken(text: string): { principal: Principal; secret: string } | null {
  const m = /^([A-Za-z0-9_-]{1,300})\.([A-Za-z0-9_-]{43})$/.exec(text);
  const principal = m && principalFromToken(m[1]!);
  return principal ? { principal, secret: m![2]! } : null;
}

/** What a flow's tag signs: its principal and its nonce. */
export const flowText = (p: Principal, flow: string) => `${principalToken(p)}.${flow}`;

export function flowState(p: Principal, flow: string, tag: string): string {
  return `${flowText(p, flow)}.${tag}`;
}

/** A callback's `state` split and checked (the tag is checked by the caller, sealed.ts signed()). */
export function splitState(text: string): { principal: Principal; flow: string; tag: string } | null {
  const m = /^([A-Za-z0-9_-]{1,300})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{22})$/.exec(text);
  const principal = m && principalFromToken(m[1]!);
  return principal ? { principal, flow: m![2]!, tag: m![3]! } : null;
}
