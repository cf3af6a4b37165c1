// Config validation: every bad config is one clear message naming the field; ${VAR} expansion
// reads the environment and the expanded secret never reaches the catalog.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig, parseConfig } from "../../cli/lib/config.ts";
import { fixture, tempDir, writeConfig } from "./helpers.ts";

const ok = { name: "demo", version: "1.0.0", mcpServers: { s: { command: "x" } } };
const message = (raw: unknown, env: NodeJS.ProcessEnv = {}) => {
  try {
    parseConfig(raw, "/tmp", env);
  } catch (e) {
    return `${(e as { code: string }).code}: ${(e as Error).message}`;
  }
  return "accepted";
};

describe("config validation", () => {
  it.each([
    [{ ...ok, nmae: "x" }, 'invalid_config: config: unknown key "nmae"'],
    [{ ...ok, version: "1.0" }, "invalid_config: config.version: must be semver (MAJOR.MINOR.PATCH)"],
    [{ ...ok, name: "Demo Catalog" }, "invalid_config: config.name: must be lowercase letters, digits, '.', '_' or '-' (1-64)"],
    [
      { ...ok, encoding: "p50k_base" },
      "invalid_config: config.encoding: Invalid enum value. Expected 'o200k_base' | 'cl100k_base', received 'p50k_base'",
    ],
    [{ ...ok, mcpServers: {} }, "invalid_config: config.mcpServers: no servers"],
    [
      { ...ok, mcpServers: { s: { args: ["a"] } } },
      'invalid_config: mcpServers.s: needs "command" (stdio), "url" with "type" (http/sse) or "tools" (recorded file)',
    ],
    [{ ...ok, mcpServers: { s: { type: "http" } } }, "invalid_config: mcpServers.s.url: Required"],
    [{ ...ok, mcpServers: { s: { command: "x", timeout: 5 } } }, 'invalid_config: mcpServers.s: unknown key "timeout"'],
    [{ ...ok, mcpServers: { s: { command: "" } } }, "invalid_config: mcpServers.s.command: command is empty"],
    [{ ...ok, mcpServers: { s: { type: "http", url: "not a url" } } }, "invalid_config: mcpServers.s.url: not a valid URL"],
    [
      { ...ok, mcpServers: { s: { type: "ws", url: "ws://x" } } },
      "invalid_config: mcpServers.s.type: Invalid enum value. Expected 'http' | 'sse' | 'streamable-http', received 'ws'",
    ],
    [
      { ...ok, mcpServers: { s: { command: "x", timeoutMs: -1 } } },
      "invalid_config: mcpServers.s.timeoutMs: Number must be greater than 0",
    ],
    [
      { ...ok, mcpServers: { s: { command: "x", env: { TOKEN: "${NOPE}" } } } },
      "invalid_config: mcpServers.s.env.TOKEN: environment variable NOPE is not set",
    ],
    [
      { ...ok, mcpServers: { s: { command: "x", args: ["--k", "${NOPE}"] } } },
      "invalid_config: mcpServers.s.args[1]: environment variable NOPE is not set",
    ],
    [
      { ...ok, mcpServers: { s: { type: "http", url: "https://${HOST}/mcp" } } },
      "invalid_config: mcpServers.s.url: environment variable HOST is not set",
    ],
    [
      { ...ok, mcpServers: { s: { type: "sse", url: "https://x/sse", headers: { Authorization: "Bearer ${NOPE}" } } } },
      "invalid_config: mcpServers.s.headers.Authorization: environment variable NOPE is not set",
    ],
    [[], "invalid_config: config: Expected object, received array"],
  ])("rejects %j", (raw, expected) => {
    expect(message(raw)).toBe(expected);
  });

  it("accepts the .mcp.json shapes and expands ${VAR}", () => {
    const config = parseConfig(
      {
        ...ok,
        mcpServers: {
          local: { type: "stdio", command: "bin/server", args: ["--key=${KEY}"], env: { TOKEN: "${KEY}" }, cwd: "sub" },
          remote: { type: "http", url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${KEY}" }, timeoutMs: 5000 },
          legacy: { type: "sse", url: "http://127.0.0.1:1/sse" },
          saved: { tools: "tools.json", alwaysLoad: true },
        },
      },
      "/base",
      { KEY: "s3cret", HOST: "example.test" },
    );
    expect(config.encoding).toBe("o200k_base");
    expect(config.servers).toEqual([
      {
        kind: "stdio",
        name: "local",
        command: "/base/bin/server",
        args: ["--key=s3cret"],
        env: { TOKEN: "s3cret" },
        cwd: "/base/sub",
        timeoutMs: 30000,
        include: undefined,
        exclude: undefined,
        alwaysLoad: undefined,
      },
      {
        kind: "http",
        name: "remote",
        url: "https://example.test/mcp",
        headers: { Authorization: "Bearer s3cret" },
        timeoutMs: 5000,
        include: undefined,
        exclude: undefined,
        alwaysLoad: undefined,
      },
      {
        kind: "sse",
        name: "legacy",
        url: "http://127.0.0.1:1/sse",
        headers: {},
        timeoutMs: 30000,
        include: undefined,
        exclude: undefined,
        alwaysLoad: undefined,
      },
      {
        kind: "recorded",
        name: "saved",
        path: "/base/tools.json",
        timeoutMs: 30000,
        include: undefined,
        exclude: undefined,
        alwaysLoad: true,
      },
    ]);
  });

  it("never writes an expanded secret into the catalog", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, {
      mcpServers: { s: { ...fixture("--tools", "2", "--name", "${SERVER_NAME}"), env: { API_KEY: "${SECRET_KEY}" } } },
    });
    const config = await loadConfig(path, { ...process.env, SECRET_KEY: "sk-live-0123456789", SERVER_NAME: "named-by-env" });
    const { text, catalog } = await buildCatalog(config);
    expect(catalog.servers[0]!.serverInfo?.name).toBe("named-by-env");
    expect(text).not.toContain("sk-live-0123456789");
    expect(text).not.toContain("${SECRET_KEY}");
  });

  it("reports unreadable and malformed config files by path", async () => {
    const dir = await tempDir();
    await expect(loadConfig(join(dir, "nope.json"))).rejects.toThrow(`cannot read config ${join(dir, "nope.json")}: ENOENT`);
    await writeFile(join(dir, "bad.json"), "{ name: demo }");
    await expect(loadConfig(join(dir, "bad.json"))).rejects.toThrow(/config .*bad\.json is not valid JSON/);
  });
});
