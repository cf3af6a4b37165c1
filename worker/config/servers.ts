// SERVERS' keys, checked whole at start (config/check.ts): a misspelled key of any entry
// (`tiemoutMs`) is a config_invalid error naming it and the closest key, never a server reached
// without its setting. Its values are read by core/servers.ts parseServers, whose problems (bad
// JSON, a URL that is not http(s)) turn off only what needs SERVERS (settings.ts serversProblem).

import { z } from "zod";
import { SERVER_KEYS } from "../core/servers.ts";
import { parseVar } from "./check.ts";

const ServerEntry = z.object(Object.fromEntries(SERVER_KEYS.map((k) => [k, z.unknown()]))).strict();

const isTable = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** Throws config_invalid for an unknown key of a SERVERS entry; leaves every other problem to parseServers. */
export function checkServerKeys(raw: unknown): void {
  let value = raw;
  if (typeof raw === "string" && raw !== "") {
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
  }
  if (!isTable(value)) return;
  for (const [name, entry] of Object.entries(value)) if (isTable(entry)) parseVar(`SERVERS.${name}`, ServerEntry, entry);
}
