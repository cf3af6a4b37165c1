// Remote transports against the real reference server (@modelcontextprotocol/server-everything)
// started on 127.0.0.1: Streamable HTTP, legacy SSE, and `http` falling back to SSE.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig } from "../../cli/lib/config.ts";
import { freePort, ROOT, tempDir, writeConfig } from "./helpers.ts";

const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

async function startEverything(mode: "streamableHttp" | "sse"): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`everything ${mode} did not start: ${log}`)), 20_000);
    child.stderr!.on("data", (d: Buffer) => {
      log += d.toString();
      if (/listening on port|running on port/i.test(log)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on("exit", (code) => reject(new Error(`everything ${mode} exited ${code}: ${log}`)));
  });
  return { port, child };
}

let http: { port: number; child: ChildProcess };
let sse: { port: number; child: ChildProcess };

beforeAll(async () => {
  [http, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")]);
});
afterAll(() => {
  http?.child.kill();
  sse?.child.kill();
});

describe("remote MCP servers", () => {
  it("lists the same tools over Streamable HTTP, SSE, and http-with-SSE-fallback", async () => {
    const dir = await tempDir();
    const config = await loadConfig(
      await writeConfig(dir, {
        mcpServers: {
          streamable: { type: "http", url: `http://127.0.0.1:${http.port}/mcp`, headers: { "x-test": "1" } },
          legacy: { type: "sse", url: `http://127.0.0.1:${sse.port}/sse` },
          fallback: { type: "http", url: `http://127.0.0.1:${sse.port}/sse` },
        },
      }),
    );
    const { catalog } = await buildCatalog(config);
    const servers = Object.fromEntries(catalog.servers.map((s) => [s.name, s]));
    expect(servers.streamable!.transport).toBe("http");
    expect(servers.legacy!.transport).toBe("sse");
    expect(servers.fallback!.transport).toBe("sse");
    expect(servers.streamable!.serverInfo?.name).toBe("mcp-servers/everything");
    expect(servers.streamable!.tools).toBeGreaterThan(5);
    const toolsOf = (s: string) => catalog.tools.filter((t) => t.server === s).map((t) => t.originalName);
    expect(toolsOf("legacy")).toEqual(toolsOf("streamable"));
    expect(toolsOf("fallback")).toEqual(toolsOf("streamable"));
  });

  it("fails clearly when nothing listens", async () => {
    const dir = await tempDir();
    const port = await freePort();
    const config = await loadConfig(
      await writeConfig(dir, { mcpServers: { gone: { type: "http", url: `http://127.0.0.1:${port}/mcp`, timeoutMs: 5000 } } }),
    );
    await expect(buildCatalog(config)).rejects.toThrow(
      /^server "gone" failed: Streamable HTTP failed \(.*\); SSE fallback failed \(.*\); no catalog written$/,
    );
  });
});
