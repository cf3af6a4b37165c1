// The pieces of per-user accounts that need no Worker: sealing at rest (AES-GCM bound to where a
// value belongs: moved to another principal or server, or tampered with, it does not open; another
// key does not open it; the previous key of a rotation does, marked stale), the keys' own check,
// flow tags, and the names links and states carry.
import { describe, expect, it } from "vitest";
import {
  flowState,
  flowText,
  linkUrl,
  principalFromToken,
  principalName,
  principalOfName,
  splitState,
  splitToken,
} from "../../worker/accounts/principal-names.ts";
import { open, openEither, seal, sealingKeys, sign, signed } from "../../worker/accounts/sealed.ts";

const KEY = "k".repeat(40);

describe("sealed values", () => {
  it("open only with the same key and the same place; never hold the plain value", async () => {
    const grant = { access_token: "at-secret-123", refresh_token: "rt-secret-456" };
    const sealed = await seal(KEY, "acme/alice\u0000github\u0000grant", grant);
    expect(sealed).not.toContain("secret");
    expect(await open(KEY, "acme/alice\u0000github\u0000grant", sealed)).toEqual(grant);
    expect(await open(KEY, "acme/bob\u0000github\u0000grant", sealed)).toBeNull();
    expect(await open("x".repeat(40), "acme/alice\u0000github\u0000grant", sealed)).toBeNull();
    const flipped = sealed.slice(0, -3) + (sealed.at(-3) === "A" ? "B" : "A") + sealed.slice(-2);
    expect(await open(KEY, "acme/alice\u0000github\u0000grant", flipped)).toBeNull();
    expect(await seal(KEY, "p", grant)).not.toBe(await seal(KEY, "p", grant)); // a fresh IV each time
  });

  it("a missing or short TOKEN_ENCRYPTION_KEY (or _PREVIOUS, when set) is a config error naming it", () => {
    const from = (vars: Record<string, string>) => () => sealingKeys((n) => vars[n]);
    expect(from({})).toThrow(/TOKEN_ENCRYPTION_KEY is not set/);
    expect(from({ TOKEN_ENCRYPTION_KEY: "short" })).toThrow(/shorter than 32/);
    expect(from({ TOKEN_ENCRYPTION_KEY: KEY, TOKEN_ENCRYPTION_KEY_PREVIOUS: "short" })).toThrow(/TOKEN_ENCRYPTION_KEY_PREVIOUS is not set/);
    expect(from({ TOKEN_ENCRYPTION_KEY: KEY })()).toEqual({ current: KEY });
  });

  it("after a rotation the previous key still opens what it sealed, marked stale; a key never named does not", async () => {
    const old = "o".repeat(40);
    const sealed = await seal(old, "p", { t: 1 });
    expect(await openEither({ current: KEY, previous: old }, "p", sealed)).toEqual({ value: { t: 1 }, stale: true });
    expect(await openEither({ current: old }, "p", sealed)).toEqual({ value: { t: 1 }, stale: false });
    expect(await openEither({ current: KEY }, "p", sealed)).toBeNull();
  });

  it("a flow tag verifies under the key that signed it (or the previous one), for that text only", async () => {
    const tag = await sign(KEY, "acme.flow");
    expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await signed({ current: KEY }, "acme.flow", tag)).toBe(true);
    expect(await signed({ current: "n".repeat(40), previous: KEY }, "acme.flow", tag)).toBe(true);
    expect(await signed({ current: KEY }, "acme.flox", tag)).toBe(false);
    expect(await signed({ current: "n".repeat(40) }, "acme.flow", tag)).toBe(false);
    expect(await signed({ current: KEY }, "acme.flow", tag.slice(0, -1))).toBe(false);
  });
});

describe("principal names", () => {
  it("a link carries its server, its principal and a 256-bit secret; a state its flow and tag; anything else is refused", () => {
    const p = { tenant: "acme", user: "alice@example.com" };
    const url = linkUrl("https://ts.example", "git-hub", p, "A".repeat(43));
    const [server, token] = url.split("/connect/")[1]!.split("/");
    expect(server).toBe("git-hub");
    expect(splitToken(token!)).toEqual({ principal: p, secret: "A".repeat(43) });
    expect(splitToken(`${token}x`)).toBeNull();
    const state = flowState(p, "F".repeat(43), "T".repeat(22));
    expect(state.startsWith(`${flowText(p, "F".repeat(43))}.`)).toBe(true);
    expect(splitState(state)).toEqual({ principal: p, flow: "F".repeat(43), tag: "T".repeat(22) });
    expect(splitState(flowText(p, "F".repeat(43)))).toBeNull();
    expect(principalFromToken(btoa("no-slash"))).toBeNull();
    expect(principalFromToken(btoa("acme/bad user"))).toBeNull();
    expect(principalOfName(principalName(p))).toEqual(p);
    expect(principalOfName("acme/ses_abc")).toBeNull(); // a session object's name
  });
});
