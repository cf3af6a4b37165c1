// Start `wrangler dev` (workerd, local) on 127.0.0.1 for a benchmark and stop it afterwards.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { ROOT } from "./catalogs.ts";

export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface DevServer {
  url: string;
  stop(): Promise<void>;
}

/** Start wrangler dev with a config file (TOML text) written next to the bench catalogs. */
export async function wranglerDev(configToml: string, configPath: string, vars: Record<string, string> = {}): Promise<DevServer> {
  await mkdir(dirname(configPath), { recursive: true });
  await writeFile(configPath, configToml);
  const port = await freePort();
  const args = [join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "dev", "--config", configPath, "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(await freePort()), "--log-level", "warn"];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", CI: "true" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited: ${log}`);
    try {
      await fetch(`${url}/__ready__`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`wrangler dev did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  return {
    url,
    stop: () =>
      new Promise<void>((res) => {
        child.once("exit", () => res());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}
