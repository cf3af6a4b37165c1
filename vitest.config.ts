// Two projects: `node` (CLI and core, real MCP servers over stdio/HTTP) and `workers` (the Worker
// inside workerd with real Durable Objects). `npm test` runs both, after the type check.
import { defineConfig } from "vitest/config";

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
    ],
  },
});
