// Two projects: `node` (CLI and core, real MCP servers over stdio/HTTP) and `workers` (the Worker
// inside workerd with real Durable Objects and the real ASSETS binding, via wrangler.toml's
// [env.test]). `npm test` runs both, after the type check.
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { prepareWorkerCatalogs } from "./test/worker/prepare-catalogs.ts";

const TEST_API_KEYS = JSON.stringify({ "test-key-tenant-a-000000": "tenant-a", "test-key-tenant-b-000000": "tenant-b" });

// the workers project serves test/worker/catalogs/: build it before workerd starts
await prepareWorkerCatalogs();

export default defineConfig({
  test: {
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
            miniflare: { bindings: { API_KEYS: TEST_API_KEYS, OPENAI_API_KEY: "test-upstream-key" } },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/worker/**/*.test.ts"],
          globalSetup: ["test/worker/upstream-setup.ts"],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
