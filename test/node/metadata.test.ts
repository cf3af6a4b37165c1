// Per-server metadata in the catalog (format v2): what a real MCP server's initialize says of
// itself, recorded rows' _meta, the one-line summary the servers listing shows, and how
// `catalog diff` and `catalog verify` treat them.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { loadConfig } from "../../cli/lib/config.ts";
import { diffCatalogs } from "../../cli/lib/diff.ts";
import { catalogHash, serializeCatalog, verifyCatalog, type Catalog } from "../../worker/core/catalog.ts";
import { fixture, tempDir, writeConfig } from "./helpers.ts";

async function build(mcpServers: Record<string, unknown>) {
  const dir = await tempDir();
  return buildCatalog(await loadConfig(await writeConfig(dir, { mcpServers })));
}

const said = (description: string) =>
  fixture("--tools", "3", "--title", "Parcel Desk", "--description", description, "--instructions", "Call track first.\nThen the rest.");

describe("server metadata from initialize", () => {
  it("keeps title, description and instructions; the summary is the first sentence of what the server said", async () => {
    const { catalog } = await build({
      said: said("Tracks parcels for the shop. Knows every carrier."),
      titled: fixture("--tools", "2", "--title", "Only A Title"),
      silent: fixture("--tools", "2"),
    });
    const by = Object.fromEntries(catalog.servers.map((s) => [s.name, s]));
    expect(by.said).toMatchObject({
      title: "Parcel Desk",
      description: "Tracks parcels for the shop. Knows every carrier.",
      instructions: "Call track first.\nThen the rest.",
      summary: "Tracks parcels for the shop.",
    });
    // a title alone says little: the server's own words follow it
    expect(by.titled!.summary).toMatch(/^Only A Title: \S/);
    expect(by.silent).not.toHaveProperty("title");
    expect(by.silent).not.toHaveProperty("instructions");
    expect(by.silent!.summary.length).toBeGreaterThan(0);
  });

  it("recorded rows: _meta.server_title / server_description; a silent server is told by its most distinctive tool words", async () => {
    const dir = await tempDir();
    const row = (server: string, name: string, description: string, meta?: object) =>
      JSON.stringify({ server, name, description, inputSchema: { type: "object" }, ...(meta ? { _meta: meta } : {}) });
    await writeFile(
      join(dir, "rows.jsonl"),
      [
        row("parcels", "track_parcel", "Track a parcel of an order", {
          server_title: "Parcels",
          server_description: "Parcel tracking for every carrier.",
        }),
        row("parcels", "parcel_label", "Print a parcel label for an order"),
        row("mail", "send_mail", "Send a mail about an order"),
        row("mail", "list_mailboxes", "List mailboxes"),
        row("mail", "archive_mail", "Archive a mail thread"),
      ].join("\n"),
    );
    const { catalog } = await buildCatalog(await loadConfig(await writeConfig(dir, { mcpServers: { rec: { tools: "rows.jsonl" } } })));
    const by = Object.fromEntries(catalog.servers.map((s) => [s.name, s]));
    expect(by.parcels).toMatchObject({
      title: "Parcels",
      description: "Parcel tracking for every carrier.",
      summary: "Parcel tracking for every carrier.",
    });
    // tool-name words first (as written), then description words; "mail" names the server
    // itself and "list" every kind of server; "order", on both servers, comes last
    expect(by.mail!.summary).toBe("archive, mailboxes, send, thread, order");
  });
});

describe("catalog diff and verify on metadata", () => {
  it("a changed description is a patch that changes only the servers listing", async () => {
    const a = (await build({ desk: said("Tracks parcels for the shop.") })).catalog;
    const b = (await build({ desk: said("Tracks parcels and returns for the shop.") })).catalog;
    const d = diffCatalogs(a, b);
    expect(d).toMatchObject({
      added: [],
      removed: [],
      changed: [],
      bump: "patch",
      metadata: [{ server: "desk", fields: ["description changed", "summary changed"] }],
      listingsChanged: ["servers"],
    });
    expect(diffCatalogs(a, a)).toMatchObject({ metadata: [], bump: "none", listingsChanged: [] });
  });

  it("verify refuses listing counts that do not add up and summaries that are not one line, even with a valid hash", async () => {
    const { catalog } = await build({ desk: said("Tracks parcels.") });
    const rehashed = async (edit: (c: Catalog) => void) => {
      const c = structuredClone(catalog);
      edit(c);
      c.hash = await catalogHash(c);
      return verifyCatalog(serializeCatalog(c), { strict: true }).then(
        () => "ok",
        (e: Error) => e.message,
      );
    };
    expect(await rehashed(() => {})).toBe("ok");
    expect(await rehashed((c) => (c.listing.sections.names += 1))).toBe(
      `listing.sections.names is ${catalog.listing.sections.names + 1}, its pieces add up to ${catalog.listing.sections.names}`,
    );
    expect(await rehashed((c) => (c.tools[0]!.tokens.short += 1))).toMatch(/^listing\.sections\.grouped is \d+, its pieces add up to \d+$/);
    expect(await rehashed((c) => (c.servers[0]!.summary = "two\nlines"))).toBe('server "desk" has no one-line summary');
    expect(await rehashed((c) => (c.build.listing = "toolsearch-listing/0"))).toContain(
      'listing counts were made for "toolsearch-listing/0"',
    );
  });
});
