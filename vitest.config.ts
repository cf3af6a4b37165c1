// Two projects: `node` (CLI and core, real MCP servers over stdio/HTTP) and `workers` (the Worker
// inside workerd with real Durable Objects and the real ASSETS binding, via wrangler.toml's
// [env.test]). `npm test` runs both, after the type check. The workers project also gets the
// edge-execution servers (started by test/worker/edge-setup.ts on the ports chosen here, which
// SERVERS names), their secret, and the D1 migrations (applied per test file by apply-migrations.ts).
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { EDGE_TOKEN, serversVar } from "./test/fixtures/edge-servers.ts";
import { freePort } from "./test/fixtures/wrangler-dev.ts";
import { prepareWorkerCatalogs } from "./test/worker/prepare-catalogs.ts";

const TEST_API_KEYS = JSON.stringify({
  "test-key-tenant-a-000000": "tenant-a",
  "test-key-tenant-b-000000": "tenant-b",
  "test-key-tenant-q-000000": "tenant-q",
  "test-key-tenant-s-000000": "tenant-s",
  "test-key-tenant-m-000000": "tenant-m",
  "test-key-tenant-u-000000": "tenant-u",
});

// the workers project serves test/worker/catalogs/: build it before workerd starts
await prepareWorkerCatalogs();
const edgePorts = { everything: await freePort(), fixture: await freePort(), legacy: await freePort() };
process.env.TOOLSEARCH_EDGE_PORTS = JSON.stringify(edgePorts);
const edgeUrls = {
  everything: `http://127.0.0.1:${edgePorts.everything}/mcp`,
  fixture: `http://127.0.0.1:${edgePorts.fixture}/mcp`,
  legacy: `http://127.0.0.1:${edgePorts.legacy}/sse`,
};
const migrations = await readD1Migrations("worker/migrations");

export default defineConfig({
  test: {
    // two test files at a time: most files wait on servers (wrangler dev, workerd, MCP servers), not
    // on the CPU, and vitest's default on 2 cores is one file at a time
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml", environment: "test" },
            // the secrets of the test deployment (test/worker/helpers.ts has the same keys)
            miniflare: {
              bindings: {
                API_KEYS: TEST_API_KEYS,
                OPENAI_API_KEY: "test-upstream-key",
                ANTHROPIC_API_KEY: "test-anthropic-key",
                SERVERS: serversVar(edgeUrls),
                EDGE_TEST_TOKEN: EDGE_TOKEN,
                TEST_MIGRATIONS: migrations,
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["test/worker/upstream-setup.ts", "test/worker/edge-setup.ts"],
          setupFiles: ["test/worker/apply-migrations.ts"],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
