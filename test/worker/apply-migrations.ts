// Runs before each workers test file (storage is isolated per file): the D1 audit schema, from
// worker/migrations/ (read by vitest.config.ts), applied to this file's database.
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

await applyD1Migrations(env.AUDIT, env.TEST_MIGRATIONS);
