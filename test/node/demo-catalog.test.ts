// The committed demo catalog is what 12 real MCP servers from devDependencies list today:
// `catalog build --check` (the CI guard) passes against it, and it is at least the size the docs describe.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../cli/lib/config.ts";
import { findCatalogFiles, readCatalogFile } from "../../cli/lib/files.ts";
import { publishCatalog } from "../../cli/lib/publish.ts";
import { ROOT } from "./helpers.ts";

describe("demo catalog", () => {
  it("is committed, verifies, and is rebuilt byte for byte from the real servers (--check)", async () => {
    const config = await loadConfig(join(ROOT, "toolsearch.config.json"));
    const [file] = await findCatalogFiles(join(ROOT, "catalogs"), config.name, config.version);
    expect(file, "run npm run catalog:demo").toBeDefined();
    const { catalog } = await readCatalogFile(file!);
    expect(catalog.servers.length).toBeGreaterThanOrEqual(8);
    expect(catalog.tools.length).toBeGreaterThanOrEqual(150);
    expect(catalog.servers.every((s) => s.transport === "stdio" && s.tools > 0)).toBe(true);
    const result = await publishCatalog(config, { outDir: join(ROOT, "catalogs"), check: true, concurrency: 12 });
    expect(result.status).toBe("checked");
    expect(result.path).toBe(file);
  });
});

describe("wrangler.toml", () => {
  it("pins a committed catalog that verifies", async () => {
    const toml = await readFile(join(ROOT, "wrangler.toml"), "utf8");
    const pinned = /^\[vars\][\s\S]*?^CATALOG = "([^"]+)"/m.exec(toml)?.[1];
    expect(pinned).toMatch(/^[a-z0-9._-]+@\d+\.\d+\.\d+\.[0-9a-f]{12}\.json$/);
    const { catalog } = await readCatalogFile(join(ROOT, "catalogs", pinned!));
    expect(pinned).toBe(`${catalog.name}@${catalog.version}.${catalog.hash.slice(0, 12)}.json`);
  });
});
