// What the workers project's globalSetups (upstream-setup.ts, edge-setup.ts) provide to the tests,
// and the test-only bindings vitest.config.ts adds to the Worker's env.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    upstreamUrl: string;
    /** the edge fixture MCP server's base URL (its /_control routes) */
    edgeFixture: string;
    edgeEverything: string;
  }
}

declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    }
  }
}
