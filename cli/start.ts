#!/usr/bin/env node
// `npm start`: the Worker on http://127.0.0.1:8787 with the demo catalog, offline. In order: the
// port is checked first (one line naming what holds it, exit 1, nothing written or started);
// .dev.vars is written if missing (lib/dev-vars.ts); the demo catalog is built if missing; the
// local D1 migrations are applied; then `wrangler dev` serves until Ctrl-C or SIGTERM.
//   npm start -- --port 8790 --var 'SERVERS:{...}'   (--port is read here; the rest goes to wrangler dev)
// wrangler dev runs in a process group of its own, and a signal to this process, or the end of the
// npm that started it, ends that whole group (wrangler and its workerd): before, `npm start` was an
// `a && b && wrangler dev` chain and `kill <npm pid>` ended npm and its shell while wrangler and
// workerd kept serving the port.

import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { DevVarsError, initDevVars } from "./lib/dev-vars.ts";
import { portInUse } from "./lib/port-in-use.ts";

const ROOT = join(import.meta.dirname, "..");
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };

function fail(message: string): never {
  process.stderr.write(`npm start: ${message}\n`);
  process.exit(1);
}

/** `--port N` or `--port=N` taken out of the arguments; the rest is for wrangler dev. */
function takePort(args: string[]): { port: number; rest: string[] } {
  const rest: string[] = [];
  let port = 8787;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = a === "--port" ? args[++i] : a.startsWith("--port=") ? a.slice(7) : undefined;
    if (value === undefined) rest.push(a);
    else if (/^\d{1,5}$/.test(value) && Number(value) > 0 && Number(value) < 65536) port = Number(value);
    else fail(`--port must be a port number, got "${value ?? ""}"`);
  }
  return { port, rest };
}

function step(args: string[]): void {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const { port, rest } = takePort(process.argv.slice(2));
const taken = await portInUse(port, "run npm start -- --port <another port>");
if (taken) fail(taken);
try {
  initDevVars();
} catch (e) {
  if (e instanceof DevVarsError) fail(e.message);
  throw e;
}
step([join(ROOT, "cli/index.ts"), "build", "--if-missing"]);
const persist = rest.findIndex((a) => a === "--persist-to");
step([WRANGLER, "d1", "migrations", "apply", "AUDIT", "--local", ...(persist >= 0 ? rest.slice(persist, persist + 2) : [])]);

// TOOLSEARCH_DEV_VARS names another file than ./.dev.vars (which wrangler reads by itself): serve its key
const envFile = process.env.TOOLSEARCH_DEV_VARS ? ["--env-file", process.env.TOOLSEARCH_DEV_VARS] : [];
// stdin ignored: a process group of its own may not read the terminal (it would be stopped)
const dev = spawn(process.execPath, [WRANGLER, "dev", "--ip", "127.0.0.1", "--port", String(port), ...envFile, ...rest], {
  cwd: ROOT,
  env,
  detached: true,
  stdio: ["ignore", "inherit", "inherit"],
});
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  const group = (s: NodeJS.Signals) => {
    try {
      process.kill(-dev.pid!, s);
    } catch {
      // the group is gone already
    }
  };
  group(signal === "SIGINT" ? "SIGINT" : "SIGTERM");
  // whatever of the group outlives a few seconds is killed
  setTimeout(() => group("SIGKILL"), 5000).unref();
};
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, () => stop(s));
// `kill <npm pid>`: npm passes SIGTERM to the shell that runs this script, which dies without
// passing it on; this process is then orphaned (a new parent): stop as on SIGTERM
const parent = process.ppid;
setInterval(() => process.ppid !== parent && stop("SIGTERM"), 500).unref();
dev.on("exit", (code) => {
  // wrangler has exited; its workerd goes with the group
  try {
    process.kill(-dev.pid!, "SIGKILL");
  } catch {
    // nothing left
  }
  process.exit(stopping ? 0 : (code ?? 1));
});
