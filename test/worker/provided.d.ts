// What the workers project's globalSetup (upstream-setup.ts) provides to the tests.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    upstreamUrl: string;
  }
}
