// Is a local port free, and if not, who holds it. `npm start` and `npm run demo` ask before they
// start anything: wrangler dev on a taken port fails late with a long log, and the demo, whose
// readiness check was answered by the other Worker, went on to fail with a 401 stack trace. The
// holder is looked up in /proc (Linux: the listening socket's inode, then the process with that
// inode among its open files); elsewhere, or for another user's process, the message names the
// port alone.

import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createServer } from "node:net";

/** True when nothing listens on host:port (a listen there succeeds). */
export function portIsFree(port: number, host = "127.0.0.1"): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

/** The inodes of the sockets listening on `port` (any address), from /proc/net/tcp and tcp6. */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT; state 0A is LISTEN; the inode is the tenth field
      if (f.length > 9 && f[3] === "0A" && parseInt(f[1]!.split(":")[1]!, 16) === port) inodes.add(f[9]!);
    }
  }
  return inodes;
}

/** "pid 123 (workerd serve ...)" for the process listening on `port`, when it can be found. */
export function portHolder(port: number): string | undefined {
  const inodes = listeningInodes(port);
  if (!inodes.size) return undefined;
  let pids: string[] = [];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target = "";
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (!inode || !inodes.has(inode)) continue;
      let command = "";
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").replace(/\s+/g, " ").trim();
      } catch {
        // the process ended while we looked
      }
      return `pid ${pid}${command ? ` (${command.length > 80 ? `${command.slice(0, 77)}...` : command})` : ""}`;
    }
  }
  return undefined;
}

/** The one line for a taken port, or undefined when it is free. `hint` says how to choose another. */
export async function portInUse(port: number, hint: string, host = "127.0.0.1"): Promise<string | undefined> {
  if (await portIsFree(port, host)) return undefined;
  const holder = portHolder(port);
  return `port ${port} on ${host} is in use${holder ? ` by ${holder}` : ""}: stop it, or ${hint}`;
}
