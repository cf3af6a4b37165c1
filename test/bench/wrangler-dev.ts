// Start `wrangler dev` for a benchmark with a config written next to the bench catalogs (its state
// directory lands there too, outside the repo's own).
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";

export { DEV_AUTH, freePort, type DevServer } from "../fixtures/wrangler-dev.ts";

export async function wranglerDev(configToml: string, configPath: string, vars: Record<string, string> = {}): Promise<DevServer> {
  await mkdir(dirname(configPath), { recursive: true });
  await writeFile(configPath, configToml);
  return startWranglerDev({ config: configPath, vars, migrate: configToml.includes("d1_databases") });
}
