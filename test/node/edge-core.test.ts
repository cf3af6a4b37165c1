// The pure parts of edge execution: SERVERS parsing and secret headers, access rules, the result
// cap and the chat rendering of results, audit queries, and the agent loop's separate budgets for
// search rounds and edge rounds (with a scripted model as the only stand-in); which URLs an OAuth
// step may reach and when two issuers are one.
import { describe, expect, it } from "vitest";
import { accessFor, accessView, checkAccess } from "../../worker/core/access.ts";
import { runAgent, type ModelTurn } from "../../worker/core/agent.ts";
import { parseAuditQuery } from "../../worker/core/audit.ts";
import { byteSize, capResult, resultText } from "../../worker/core/call-result.ts";
import { searchCatalog } from "../../worker/core/search.ts";
import { sameIssuer, secureOrLoopback } from "../../worker/core/oauth-url.ts";
import { parseServers, redact, resolveHeaders } from "../../worker/core/servers.ts";
import type { CatalogTool } from "../../worker/core/catalog.ts";

const tool = (name: string, server: string, annotations?: Record<string, boolean>): CatalogTool => ({
  name,
  server,
  originalName: name.split("__").pop()!,
  description: name,
  inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  annotations,
  tokens: { definition: 10, name: 2, short: 1 },
});

describe("SERVERS", () => {
  const table = { github: { url: "https://mcp.example.com/mcp", headers: { authorization: "Bearer ${GITHUB_TOKEN}" }, timeoutMs: 5000 } };

  it("reads the wrangler.toml table and the same JSON as a string alike", () => {
    expect([...parseServers(JSON.stringify(table))]).toEqual([...parseServers(table)]);
    expect(parseServers(table).get("github")).toEqual({
      url: "https://mcp.example.com/mcp",
      headers: { authorization: "Bearer ${GITHUB_TOKEN}" },
      timeoutMs: 5000,
    });
    expect(parseServers({ a: { url: "http://127.0.0.1:1/mcp" } }).get("a")!.timeoutMs).toBe(30_000);
    expect(parseServers(undefined).size).toBe(0);
  });

  it.each([
    ["{not json", /not valid JSON/],
    [{ a: { url: "ftp://x" } }, /a\.url must be an http\(s\) URL/],
    [{ a: { url: "http://x", token: "t" } }, /a\.token is not a setting/],
    [{ a: { url: "http://x", timeoutMs: -1 } }, /a\.timeoutMs must be a positive integer/],
    [{ a: { url: "http://x", headers: { x: 1 } } }, /a\.headers must map names to strings/],
  ])("refuses %j", (raw, message) => {
    expect(() => parseServers(raw)).toThrow(message);
  });

  it("resolves ${NAME} from the secrets at call time; a missing one is named, never its value", () => {
    const server = parseServers(table).get("github")!;
    expect(resolveHeaders("github", server, (n) => ({ GITHUB_TOKEN: "ghp_secret_value" })[n])).toEqual({
      headers: { authorization: "Bearer ghp_secret_value" },
      secrets: ["ghp_secret_value"],
    });
    expect(() => resolveHeaders("github", server, () => undefined)).toThrow(
      "SERVERS: github.headers.authorization uses the secret GITHUB_TOKEN, which is not set (wrangler secret put GITHUB_TOKEN)",
    );
    expect(redact("got Bearer ghp_secret_value twice: ghp_secret_value", ["ghp_secret_value"])).toBe(
      "got Bearer [redacted] twice: [redacted]",
    );
  });
});

describe("OAuth URLs", () => {
  it("https anywhere; plain http only to 127.0.0.0/8, ::1 and localhost, whatever a name looks like", () => {
    const allowed = (u: string) => secureOrLoopback(new URL(u));
    for (const u of [
      "https://as.example/",
      "http://127.0.0.1:8/",
      "http://127.9.8.7/",
      "http://127.1/",
      "http://[::1]:9/",
      "http://LOCALHOST/",
    ])
      expect([u, allowed(u)]).toEqual([u, true]);
    const refused = [
      "http://as.example/",
      "http://127.0.0.1.nip.io/",
      "http://localhost.evil.example/",
      "http://10.0.0.1/",
      "http://[::ffff:7f00:1]/",
    ];
    for (const u of [...refused, "http://192.0.2.2/", "ftp://127.0.0.1/", "file:///etc/passwd"])
      expect([u, allowed(u)]).toEqual([u, false]);
  });

  it("two issuers are one when equal as URLs, one trailing slash aside", () => {
    expect(sameIssuer("https://AS.example", "https://as.example/")).toBe(true);
    expect(sameIssuer("https://as.example:443/t1/", "https://as.example/t1")).toBe(true);
    expect(sameIssuer("https://as.example/t1", "https://as.example/t2")).toBe(false);
    expect(sameIssuer("https://as.example/", "http://as.example/")).toBe(false);
  });
});

describe("access rules", () => {
  const config = {
    disabled: ["mcp__db__drop_*"],
    default: { deny: ["server:billing"], denyAnnotations: { destructiveHint: true } },
    tenants: { ops: { allow: ["mcp__db__*"] }, readers: { requireAnnotations: { readOnlyHint: true } } },
  };
  const tools = [
    tool("mcp__db__query", "db", { readOnlyHint: true }),
    tool("mcp__db__drop_table", "db", { readOnlyHint: false, destructiveHint: true }),
    tool("mcp__db__insert", "db", { readOnlyHint: false, destructiveHint: false }),
    tool("mcp__billing__refund", "billing", { readOnlyHint: false, destructiveHint: false }),
    tool("mcp__web__fetch", "web"),
  ];

  it("a tenant with its own rules uses them instead of the default; disabled applies to all", () => {
    const allowed = (tenant: string) => tools.filter((t) => checkAccess(accessFor(config, tenant), t).allowed).map((t) => t.name);
    // mcp__web__fetch has no annotations: MCP says destructive unless read-only, so default denies it
    expect(allowed("anyone")).toEqual(["mcp__db__query", "mcp__db__insert"]);
    expect(allowed("ops")).toEqual(["mcp__db__query", "mcp__db__insert"]);
    expect(allowed("readers")).toEqual(["mcp__db__query"]);
    expect(checkAccess(accessFor(config, "ops"), tools[3]!)).toEqual({
      allowed: false,
      reason: "not allowed for tenant ops (allow: mcp__db__*)",
    });
    expect(checkAccess(accessFor(config, "ops"), tools[1]!)).toEqual({
      allowed: false,
      reason: "disabled globally (POLICY.access.disabled: mcp__db__drop_*)",
    });
  });

  it("no rules: every tool, and the view names no candidates", () => {
    expect(accessView(tools, accessFor(undefined, "t"))).toMatchObject({ candidates: undefined });
    expect(accessView(tools, undefined).denied.size).toBe(0);
  });

  it("refuses rules it does not know", () => {
    expect(() => accessFor({ default: { allowOnly: ["x"] } } as never, "t")).toThrow("POLICY.access: default.allowOnly is not a rule");
    expect(() => accessFor({ tenants: { t: { denyAnnotations: { dangerous: true } } } } as never, "t")).toThrow(
      /tenants\.t\.denyAnnotations\.dangerous must be one of readOnlyHint/,
    );
  });
});

describe("results", () => {
  it("a result within the cap is untouched; a larger one fits the cap and says what was cut", () => {
    const small = { content: [{ type: "text", text: "ok" }] };
    expect(capResult(small, 1000)).toEqual({ result: small, bytes: byteSize(small), capped: false });
    const big = {
      content: [
        { type: "text", text: "é".repeat(50_000) },
        { type: "image", data: "A".repeat(10_000), mimeType: "image/png" },
      ],
      structuredContent: { rows: "x".repeat(20_000) },
    };
    const { result, capped } = capResult(big, 8192);
    expect(capped).toBe(true);
    expect(byteSize(result)).toBeLessThanOrEqual(8192);
    expect(result.structuredContent).toBeUndefined();
    expect((result.content[0]!.text as string).endsWith("é")).toBe(true); // no half character
    expect(result.content.at(-1)!.text).toMatch(
      /^\[toolsearch: result capped: the server sent \d+ bytes, the limit is 8192; 2 content block\(s\) cut or dropped, structuredContent dropped\]$/,
    );
  });

  it("renders content blocks as the text of a chat tool message", () => {
    const text = resultText({
      isError: true,
      content: [
        { type: "text", text: "first" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inside" } },
        { type: "resource_link", uri: "file:///b", name: "b" },
      ],
    });
    expect(text).toBe(
      "Error: first\n[image image/png, 4 base64 characters]\n[resource file:///a.txt]\ninside\n[resource link file:///b (b)]",
    );
    expect(resultText({ content: [], structuredContent: { total: 3 } })).toBe('{"total":3}');
    expect(resultText({ content: [{ type: "text", text: "abcdef" }] }, 4)).toBe("abcd\n[toolsearch: result cut to 4 of 6 characters]");
  });
});

describe("audit queries", () => {
  it("reads filters and refuses bad ones with the parameter's name", () => {
    expect(parseAuditQuery(new URLSearchParams("tool=mcp__a__b&outcome=timeout&since=2026-01-01T00:00:00Z&limit=20"))).toEqual({
      tool: "mcp__a__b",
      outcome: "timeout",
      since: Date.parse("2026-01-01T00:00:00Z"),
      limit: 20,
    });
    expect(() => parseAuditQuery(new URLSearchParams("session=nope"))).toThrow("session: must be a session id");
  });
});

describe("the agent loop's budgets", () => {
  const tools = [tool("mcp__fx__add", "fx")];
  const cat = searchCatalog(tools, {} as never);
  const session = { mode: "full" as const, activation: "inject" as const, systemSection: "", coreTools: ["mcp__fx__add"], activations: [] };
  const callAdd = (i: number): ModelTurn => ({
    message: {
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${i}`, type: "function", function: { name: "mcp__fx__add", arguments: '{"n":1}' } }],
    },
    finishReason: "tool_calls",
  });

  it("edge rounds have their own limit; the last allowed call gets tool_choice none", async () => {
    const choices: unknown[] = [];
    let executed = 0;
    const result = await runAgent(
      {
        catalog: cat,
        session,
        clientTools: [],
        messages: [{ role: "user", content: "add" }],
        maxHops: 1,
        edge: { servers: new Set(["fx"]), maxRounds: 3 },
      },
      {
        callModel: async (r) => (
          choices.push(r.toolChoice),
          r.toolChoice === "none" ? { message: { role: "assistant", content: "done" }, finishReason: "stop" } : callAdd(choices.length)
        ),
        activate: async () => ({ loaded: [], alreadyLoaded: [], activations: [] }),
        execute: async () => `total: ${++executed}`,
      },
    );
    expect(executed).toBe(3); // three edge rounds although maxHops (search rounds) is 1
    expect(choices).toEqual([undefined, undefined, undefined, "none"]);
    expect(result.message.content).toBe("done");
    expect(result.splice!.hidden.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["total: 1", "total: 2", "total: 3"]);
  });

  it("without edge execution the same call goes to the client", async () => {
    const result = await runAgent(
      { catalog: cat, session, clientTools: [], messages: [{ role: "user", content: "add" }], maxHops: 1 },
      {
        callModel: async () => callAdd(1),
        activate: async () => ({ loaded: [], alreadyLoaded: [], activations: [] }),
        execute: async () => "never",
      },
    );
    expect(result.message.tool_calls![0]!.function.name).toBe("mcp__fx__add");
  });
});
