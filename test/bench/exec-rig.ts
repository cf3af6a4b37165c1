// What `npm run bench:exec` (latency) and `npm run bench:exec -- faults` share: the project's
// Worker in `wrangler dev` on the edge test catalog with the SERVERS they give, a small client of
// its REST API, paging through audit listings, D1 commands on the same local state, and statistics.
// Ports come from the caller (this machine's benches keep to an assigned range).
import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { EDGE_TOKEN } from "../fixtures/edge-servers.ts";
import { startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { ROOT } from "./catalogs.ts";

export const KEY = "bench-exec-key-0123456789";
export const HEADERS = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
export type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
export const fmt = (n: number, digits = 1) => n.toFixed(digits);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Run `count` tasks with at most `width` at once; the wall time in ms. */
export async function pool(count: number, width: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
  return performance.now() - started;
}

export interface Project {
  state: string;
  port: number;
  /** SERVERS as given to the Worker */
  servers: string;
  vars?: Record<string, string>;
}

/** The project's Worker (env test, the edge catalog) on `port`, keeping its state in `state` across restarts. */
export async function startProject(p: Project): Promise<DevServer> {
  const envFile = join(p.state, ".env");
  await writeFile(envFile, `EDGE_TEST_TOKEN=${EDGE_TOKEN}\n`);
  return startWranglerDev({
    env: "test",
    persistTo: p.state,
    envFile,
    port: p.port,
    vars: {
      CATALOG: "edge@1.0.0.json",
      SERVERS: p.servers,
      OPENAI_API_KEY: "unused",
      API_KEYS: JSON.stringify({ [KEY]: "bench" }),
      ...p.vars,
    },
  });
}

export class Api {
  base: string;
  constructor(base: string) {
    this.base = base;
  }

  async send(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: HEADERS,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  async ok(method: string, path: string, body?: unknown): Promise<Json> {
    const r = await this.send(method, path, body);
    if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  session = async (): Promise<string> => (await this.ok("POST", "/v1/sessions", { model: "gpt-4o", deferral: "on" })).id;

  call = (id: string, name: string, args: unknown) => this.send("POST", `/v1/sessions/${id}/tools/${name}/call`, { arguments: args });

  /** Every event of an audit listing (`/v1/sessions/:id/audit` or `/v1/audit?...`), all pages. */
  async events(path: string): Promise<Json[]> {
    const out: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await this.ok("GET", `${path}${path.includes("?") ? "&" : "?"}limit=500${cursor ? `&cursor=${cursor}` : ""}`);
      out.push(...page.events);
      cursor = page.cursor;
    } while (cursor);
    return out;
  }
}

/** `wrangler d1 execute AUDIT --local` on the project's state (the Worker keeps running). */
export async function d1(state: string, sql: string): Promise<void> {
  const wrangler = join(ROOT, "node_modules/wrangler/bin/wrangler.js");
  const args = [wrangler, "d1", "execute", "AUDIT", "--local", "--env", "test", "--persist-to", state, "--command", sql];
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" };
  await promisify(execFile)(process.execPath, args, { cwd: ROOT, env });
}
