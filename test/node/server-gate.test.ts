// Which servers serve their resources and prompts through the gateway (worker/core/gate.ts
// serverGate, issue 39 R2-L7), decided by the same rules as their tools: the rules a session froze,
// the rules deployed now and the profile's whitelist. test/worker/mcp-resources.test.ts runs the
// same through /mcp with server-everything.
import { describe, expect, it } from "vitest";
import { accessFor, type AccessConfig } from "../../worker/core/access.ts";
import type { CatalogTool } from "../../worker/core/catalog.ts";
import { serverGate, type LiveRules } from "../../worker/core/gate.ts";

const tool = (server: string, name: string): CatalogTool => ({ name: `mcp__${server}__${name}`, server }) as CatalogTool;
const TOOLS = [tool("docs", "read"), tool("docs", "delete"), tool("mail", "send")];
const rules = (config: AccessConfig) => accessFor(config, "t");
const live = (config: AccessConfig = {}, whitelists: Record<string, string[]> = {}): LiveRules => ({
  access: rules(config),
  approval: { ask: [], remember: "call", source: "default" },
  whitelists,
});
const session = (config: AccessConfig = {}, extra: { profile?: string; whitelist?: string[] } = {}) => ({
  access: rules(config),
  mcp: { servers: ["docs", "mail"] },
  profile: extra.profile ?? "default",
  ...(extra.whitelist ? { whitelist: extra.whitelist } : {}),
});

describe("serverGate (R2-L7)", () => {
  it("no rule: every server serves; a server without a tool in the catalog does not", () => {
    const gate = serverGate(TOOLS, session(), live());
    expect([gate("docs"), gate("mail")]).toEqual([undefined, undefined]);
    expect(gate("ghost")).toBe("server ghost has no tool in this session's catalog");
  });

  it("one denied tool closes its server, under the frozen rules or the rules now; allow server:<glob> in the same rules opens it", () => {
    const deny = { default: { deny: ["mcp__docs__delete"] } };
    const reason =
      "tool mcp__docs__delete of server docs is denied (denied by default (deny: mcp__docs__delete)) and no server: pattern in allow names docs";
    expect(serverGate(TOOLS, session(deny), live())("docs")).toBe(reason);
    expect(serverGate(TOOLS, session(), live(deny))("docs")).toBe(reason);
    expect(serverGate(TOOLS, session(), live(deny))("mail")).toBeUndefined();
    const opened = { default: { allow: ["server:d*", "server:mail"], deny: ["mcp__docs__delete"] } };
    expect(serverGate(TOOLS, session(opened), live(opened))("docs")).toBeUndefined();
    // the rules now deny the tool, and only the frozen ones name the server: closed
    expect(serverGate(TOOLS, session(opened), live(deny))("docs")).toBe(reason);
  });

  it("a tool allow list, annotations and the global disabled list count as denials; a server denied entirely never opens", () => {
    expect(serverGate(TOOLS, session({ default: { allow: ["mcp__docs__read", "mcp__mail__*"] } }), live())("docs")).toMatch(
      /^tool mcp__docs__delete of server docs is denied \(not allowed for default/,
    );
    expect(serverGate(TOOLS, session({ disabled: ["mcp__docs__delete"] }), live())("docs")).toMatch(/disabled globally/);
    const entirely = { default: { allow: ["server:docs"], deny: ["server:docs"] } };
    expect(serverGate(TOOLS, session(entirely), live())("docs")).toBe(
      "every tool of server docs is denied (denied by default (deny: server:docs))",
    );
  });

  it("a profile whose whitelist leaves out a tool of the server closes it; one that holds all of them does not", () => {
    const sub = { profile: "sub", whitelist: ["mcp__docs__read"] };
    expect(serverGate(TOOLS, session({}, sub), live())("docs")).toBe('profile "sub" runs only its own tools (POLICY.profiles.sub.tools)');
    expect(serverGate(TOOLS, session({}, { profile: "sub" }), live({}, { sub: ["mcp__mail__send"] }))("mail")).toBeUndefined();
  });
});
