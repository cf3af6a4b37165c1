// The official MCP conformance suite (@modelcontextprotocol/conformance) against the gateway under
// `wrangler dev`, through a proxy that adds the bearer key (the suite takes a URL, no headers).
// The server scenarios that apply to a gateway run here; each must pass with no failed check.
// Not applicable, because the gateway serves tools only and its tools are the catalog's:
// - tools-call-* (simple-text, image, audio, embedded-resource, mixed-content, with-logging,
//   error, with-progress, sampling, elicitation), json-schema-2020-12 and elicitation-sep1034-
//   defaults / -sep1330-enums call the suite's own test tools (test_simple_text, ...), which no
//   catalog has (progress pass-through is tested with server-everything in mcp-spec.test.ts);
// - resources-*, prompts-* and completion-complete: they read the suite's own test resources and
//   prompts (test://...), which no catalog server has (upstream resources and prompts through the
//   gateway are tested with server-everything in test/worker/mcp-resources.test.ts);
// - logging-set-level: it declares no logging capability.
import { execFile } from "node:child_process";
import { createServer, request as httpRequest, type Server } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything } from "../fixtures/edge-servers.ts";
import { DEV_API_KEY, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { ROOT, tempDir } from "./helpers.ts";

const run = promisify(execFile);
// the suite needs Node 22 (fs.globSync): the repo's pinned node
const NODE = join(ROOT, "node_modules/.bin/node");
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");

/**
 * A proxy that adds the bearer key to every request and passes the rest through, streams and the
 * Host header included (as a browser sends it: dns-rebinding-protection sends a foreign one).
 */
interface BearerProxy {
  url: string;
  close(): Promise<void>;
}

async function startBearerProxy(target: string, key: string): Promise<BearerProxy> {
  const to = new URL(target);
  const server: Server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${key}` };
    const upstream = httpRequest({ hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", (e) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(String(e));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let everything: { url: string; stop(): Promise<void> };
let dev: DevServer;
let proxy: BearerProxy;

beforeAll(async () => {
  everything = await startEverything();
  dev = await startWranglerDev({
    persistTo: await tempDir("toolsearch-conformance-"),
    vars: { SERVERS: JSON.stringify({ everything: { url: everything.url } }) },
  });
  proxy = await startBearerProxy(dev.url, DEV_API_KEY);
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await dev?.stop();
  await everything?.stop();
});

/** [scenario, checks that must pass] */
const APPLICABLE: Array<[string, number]> = [
  ["server-initialize", 1],
  ["ping", 1],
  ["tools-list", 1],
  ["server-sse-multiple-streams", 2],
  ["dns-rebinding-protection", 2],
  // only SHOULD checks for resumable streams (priming event, retry field): warnings, no failure
  ["server-sse-polling", 0],
];

describe("the official MCP conformance suite, server scenarios that apply to a gateway", () => {
  for (const [scenario, passed] of APPLICABLE) {
    it(`${scenario}: ${passed} passed, 0 failed`, async () => {
      const { stdout } = await run(NODE, [SUITE, "server", "--url", `${proxy.url}/mcp`, "--scenario", scenario], { timeout: 120_000 });
      const m = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
      expect(m, stdout).not.toBeNull();
      expect([Number(m![1]), Number(m![2]), Number(m![3])]).toEqual([passed, passed, 0]);
    }, 150_000);
  }
});
