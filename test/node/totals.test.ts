// The same totals everywhere: for the demo catalog, what `catalog stats --json` prints, what GET
// /v1/catalog answers (and the page draws), and the token count a new session's reason states come
// from one function (core/summary.ts definitionTokens), so a user comparing them sees one number
// per quantity: full injection, the deferrable tools, each listing section, each server's share.
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_AUTH, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { ROOT, tempDir } from "./helpers.ts";

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const DEMO = join(
  ROOT,
  "catalogs",
  (await readdir(join(ROOT, "catalogs"))).find((f) => /^demo@.*\.json$/.test(f))!,
);
let dev: DevServer;

async function api(method: string, path: string, body?: unknown): Promise<Json> {
  const headers = { ...DEV_AUTH, "content-type": "application/json" };
  const res = await fetch(`${dev.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

describe("the demo catalog's totals", () => {
  beforeAll(async () => {
    dev = await startWranglerDev({ persistTo: await tempDir("toolsearch-totals-") });
  }, 120_000);
  afterAll(() => dev?.stop());

  it("are the same in catalog stats, GET /v1/catalog and a session's reason", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, "cli/index.ts"), "stats", DEMO, "--json"], { cwd: ROOT });
    const cli = JSON.parse(stdout);
    const info = await api("GET", "/v1/catalog");
    expect(info.hash).toBe(cli.hash);
    expect(info.tokens.fullInjection).toBe(cli.tokens.full);
    expect(info.tokens.deferrable).toBe(cli.tokens.deferrable);
    expect(info.tokens.listing).toEqual(cli.tokens.sections);
    // the servers' shares (the page's bars and table) add up to the totals
    const sum = (key: "full" | "core") => info.servers.reduce((n: number, s: Json) => n + s.tokens[key], 0);
    expect(sum("full")).toBe(info.tokens.fullInjection);
    expect(info.tokens.fullInjection - sum("core")).toBe(info.tokens.deferrable);
    // gpt-4o: 10% of 128,000 tokens is less than the demo's deferrable tools, so the reason weighs them
    const session = await api("POST", "/v1/sessions", { model: "gpt-4o" });
    expect(session.reason).toContain(`deferrable tools (${cli.tokens.deferrable} tokens) exceed 10% of`);
    const preview = await api("GET", "/v1/catalog/policy?model=gpt-4o");
    expect(preview.reason).toBe(session.reason);
  });
});
