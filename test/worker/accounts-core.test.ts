// The pieces of per-user accounts that need no Worker: sealing at rest (AES-GCM bound to where a
// value belongs: moved to another principal or server, or tampered with, it does not open; another
// key does not open it), the key's own check, and the names links and states carry.
import { describe, expect, it } from "vitest";
import { linkUrl, principalFromToken, principalName, principalOfName, splitToken } from "../../worker/accounts/principal-names.ts";
import { open, seal, sealingSecret } from "../../worker/accounts/sealed.ts";

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

  it("a missing or short TOKEN_ENCRYPTION_KEY is a config error naming it", () => {
    expect(() => sealingSecret(undefined)).toThrow(/TOKEN_ENCRYPTION_KEY is not set/);
    expect(() => sealingSecret("short")).toThrow(/shorter than 32/);
  });
});

describe("principal names", () => {
  it("a link carries its principal and a 256-bit secret; anything else is refused", () => {
    const p = { tenant: "acme", user: "alice@example.com" };
    const url = linkUrl("https://ts.example", p, "A".repeat(43));
    const token = url.split("/connect/")[1]!;
    expect(splitToken(token)).toEqual({ principal: p, secret: "A".repeat(43) });
    expect(splitToken(`${token}x`)).toBeNull();
    expect(principalFromToken(btoa("no-slash"))).toBeNull();
    expect(principalFromToken(btoa("acme/bad user"))).toBeNull();
    expect(principalOfName(principalName(p))).toEqual(p);
    expect(principalOfName("acme/ses_abc")).toBeNull(); // a session object's name
  });
});
