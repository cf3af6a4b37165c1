// What the workers project's globalSetups (upstream-setup.ts, edge-setup.ts) provide to the tests,
// and the test-only bindings vitest.config.ts adds to the Worker's env.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    upstreamUrl: string;
    /** the edge fixture MCP server's base URL (its /_control routes) */
    edgeFixture: string;
    edgeEverything: string;
    /** the MCP 2026-07-28 fixture's base URL (its MCP endpoint is /mcp, its /_control routes) */
    edgeModern: string;
  }
}

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    }
  }
}
