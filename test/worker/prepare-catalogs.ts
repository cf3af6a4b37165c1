// Node side, run by vitest.config.ts before workerd starts: fills test/worker/catalogs/ (bundled into
// the test Worker by wrangler.toml's [env.test] entry, test/worker/main.ts) with real catalogs built by the CLI library:
// the committed demo catalogs (and copies with and without its search text), two versions of a small shop catalog, a tampered copy, an office
// catalog of two LiveMCPBench servers (ppt has 35 tools), a shop catalog in the old format v1, the
// `edge` catalog (server-everything and the edge fixture, snapshotted over stdio) that the edge
// execution tests call over HTTP, the `modern` catalog (the MCP 2026-07-28 fixture, called over HTTP
// by test/node/upstream-2026.test.ts), the `oauth` catalog (servers that authorize each user:
// test/fixtures/oauth-servers.ts); then bundles them with the page into files.ts there
// (cli/lib/worker-files.ts: the vitest plugin runs no wrangler [build] command). Also a script:
// `node test/worker/prepare-catalogs.ts --if-missing` (npm run typecheck) prepares them only when
// files.ts is not there yet, since test/worker/main.ts imports it.
import { access, copyFile, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";
import { buildCatalog } from "../../cli/lib/build.ts";
import { parseConfig } from "../../cli/lib/config.ts";
import { tokenCounter } from "../../cli/lib/tokens.ts";
import { toolDeclaration } from "../../worker/core/declarations.ts";
import { catalogHash, serializeCatalog, type Catalog } from "../../worker/core/catalog.ts";
import { buildIndex } from "../../worker/core/tool-index.ts";
import { writeWorkerFiles } from "../../cli/lib/worker-files.ts";
import { EDGE_CATALOG_SERVERS, MODERN_CATALOG_SERVERS } from "../fixtures/edge-servers.ts";
import { OAUTH_TOOLS } from "../fixtures/oauth-servers.ts";

const ROOT = resolve(import.meta.dirname, "../..");
export const TEST_CATALOGS = join(ROOT, "test/worker/catalogs");

/** The pinned demo catalog under another name, with its search text or with it taken out (the index rebuilt without it). */
async function demoCopy(name: string, withText: boolean): Promise<string> {
  const file = (await readdir(join(ROOT, "catalogs"))).find((f) => f.startsWith("demo@") && f.endsWith(".json"))!;
  const demo = JSON.parse(await readFile(join(ROOT, "catalogs", file), "utf8")) as Catalog;
  const tools = withText ? demo.tools : demo.tools.map(({ search: _, ...t }) => t);
  const { hash: _old, ...rest } = { ...demo, name, version: "1.0.0", tools, index: buildIndex(tools) };
  return serializeCatalog({ ...rest, hash: await catalogHash(rest) });
}

async function shop(version: string, edit: (tools: Array<Record<string, unknown>>) => void) {
  const { tools } = JSON.parse(await readFile(join(ROOT, "test/fixtures/shop-tools.json"), "utf8"));
  edit(tools);
  const file = join(TEST_CATALOGS, `.shop-${version}.tools.json`);
  await writeFile(file, JSON.stringify(tools));
  const config = parseConfig(
    { name: "shop", version, mcpServers: { shop: { tools: file, alwaysLoad: ["search_products"] } } },
    TEST_CATALOGS,
  );
  const { text } = await buildCatalog(config);
  await rm(file);
  return text;
}

export async function prepareWorkerCatalogs(): Promise<void> {
  await mkdir(TEST_CATALOGS, { recursive: true });
  for (const f of await readdir(TEST_CATALOGS)) await rm(join(TEST_CATALOGS, f), { force: true, recursive: true });
  for (const f of await readdir(join(ROOT, "catalogs"))) {
    if (f.endsWith(".json")) await copyFile(join(ROOT, "catalogs", f), join(TEST_CATALOGS, f));
  }
  await writeFile(join(TEST_CATALOGS, "demo-text@1.0.0.json"), await demoCopy("demo-text", true));
  await writeFile(join(TEST_CATALOGS, "demo-plain@1.0.0.json"), await demoCopy("demo-plain", false));
  const v1 = await shop("1.0.0", () => {});
  const v2 = await shop("2.0.0", (tools) => {
    tools.splice(
      tools.findIndex((t) => t.name === "cancel_order"),
      1,
    );
    tools.push({
      name: "gift_wrap_order",
      description: "Add gift wrapping and a message to an order.",
      inputSchema: { type: "object", properties: { order_id: { type: "string" }, message: { type: "string" } }, required: ["order_id"] },
    });
  });
  await writeFile(join(TEST_CATALOGS, "shop@1.0.0.json"), v1);
  await writeFile(join(TEST_CATALOGS, "shop@2.0.0.json"), v2);
  // what declarations.ts renders for each shop tool, tokenized here (the Worker has no tokenizer): page-api.test.ts
  const count = await tokenCounter("o200k_base");
  const declarations = Object.fromEntries((JSON.parse(v1) as Catalog).tools.map((t) => [t.name, count(toolDeclaration(t))]));
  await writeFile(join(TEST_CATALOGS, "shop@1.0.0.declaration-tokens.json"), JSON.stringify(declarations));
  const at = v1.indexOf("Cancel an order");
  await writeFile(join(TEST_CATALOGS, "tampered@1.0.0.json"), `${v1.slice(0, at)}Xancel an order${v1.slice(at + 15)}`);
  // LiveMCPBench's ppt (35 tools) and word-document-server, with the descriptions its rows carry
  const rows = (await readFile(join(ROOT, "test/data/eval/livemcpbench/tools.jsonl"), "utf8"))
    .split("\n")
    .filter((l) => /"server": "(ppt|word-document-server)"/.test(l));
  await writeFile(join(TEST_CATALOGS, ".office.jsonl"), rows.join("\n"));
  const office = await buildCatalog(
    parseConfig({ name: "office", version: "1.0.0", mcpServers: { office: { tools: ".office.jsonl" } } }, TEST_CATALOGS),
  );
  await rm(join(TEST_CATALOGS, ".office.jsonl"));
  await writeFile(join(TEST_CATALOGS, "office@1.0.0.json"), office.text);
  // built by toolsearch before the catalog format v2 (committed fixture)
  await copyFile(join(ROOT, "test/fixtures/catalog-v1/shop@1.0.0.abbdda6763df.json"), join(TEST_CATALOGS, "shop-v1@1.0.0.json"));
  const hash12 = JSON.parse(v1).hash.slice(0, 12);
  await writeFile(join(TEST_CATALOGS, `shop@1.0.0.${hash12}.json`), v1);
  await writeFile(join(TEST_CATALOGS, "shop@1.0.0.000000000000.json"), v1); // name claims another hash
  const edge = await buildCatalog(parseConfig({ name: "edge", version: "1.0.0", mcpServers: EDGE_CATALOG_SERVERS }, TEST_CATALOGS));
  await writeFile(join(TEST_CATALOGS, "edge@1.0.0.json"), edge.text);
  // per-user OAuth servers (test/node/oauth.test.ts): the SDK's example server and the accounts fixture
  for (const [server, tools] of Object.entries(OAUTH_TOOLS))
    await writeFile(join(TEST_CATALOGS, `.${server}.tools.json`), JSON.stringify({ tools }));
  const oauth = await buildCatalog(
    parseConfig(
      {
        name: "oauth",
        version: "1.0.0",
        mcpServers: Object.fromEntries(Object.keys(OAUTH_TOOLS).map((s) => [s, { tools: `.${s}.tools.json` }])),
      },
      TEST_CATALOGS,
    ),
  );
  for (const server of Object.keys(OAUTH_TOOLS)) await rm(join(TEST_CATALOGS, `.${server}.tools.json`));
  await writeFile(join(TEST_CATALOGS, "oauth@1.0.0.json"), oauth.text);
  const modern = await buildCatalog(parseConfig({ name: "modern", version: "1.0.0", mcpServers: MODERN_CATALOG_SERVERS }, TEST_CATALOGS));
  await writeFile(join(TEST_CATALOGS, "modern@1.0.0.json"), modern.text);
  await writeWorkerFiles(TEST_CATALOGS, join(TEST_CATALOGS, "files.ts"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = await access(join(TEST_CATALOGS, "files.ts")).then(
    () => false,
    () => true,
  );
  if (!process.argv.includes("--if-missing") || missing) await prepareWorkerCatalogs();
}
