// The authorization-server mix-up guard (R2-M1): each SERVERS entry keeps to one authorization
// server. An entry's pin is its configured `issuer` (SERVERS), else the issuer recorded at this
// principal's first connect (the discovered metadata in account_servers). Discovery refuses
// metadata whose issuer is not the URL it came from (RFC 8414 section 3.3), is not this entry's
// pin, or is another entry's pin: a server naming another server's authorization server would
// otherwise be handed tokens minted for that one, and replay them there. Entries the operator
// configures with the same `issuer` may share it. The callback's `iss` (RFC 9207) must be the
// issuer wherever it is sent, and must be sent where the metadata says so. Pure: no I/O.

import { sameIssuer } from "../core/oauth-url.ts";
import type { Servers } from "../core/servers.ts";

export interface IssuerPins {
  server: string;
  /** this entry's SERVERS `issuer` */
  configured?: string;
  /** the issuer this principal's first connect recorded for this entry */
  recorded?: string;
  /** the other oauth entries' pins (configured, else recorded) */
  others: Array<{ server: string; issuer: string }>;
}

/** The pins that apply to `server`: from SERVERS and what this principal recorded (server, issuer). */
export function pinsFor(server: string, servers: Servers, recorded: ReadonlyArray<{ server: string; issuer: string }>): IssuerPins {
  const recordedFor = (name: string) => recorded.find((r) => r.server === name)?.issuer;
  const others: IssuerPins["others"] = [];
  for (const [name, entry] of servers) {
    const issuer = entry.oauth?.issuer ?? recordedFor(name);
    if (name !== server && entry.oauth && issuer) others.push({ server: name, issuer });
  }
  const configured = servers.get(server)?.oauth?.issuer;
  const mine = recordedFor(server);
  return { server, ...(configured ? { configured } : {}), ...(mine ? { recorded: mine } : {}), others };
}

/**
 * Why `issuer` may not serve this entry, or null when it may. Messages name only what the Worker
 * holds (entry names, pinned issuers), never the remote metadata's text.
 */
export function issuerRefusal(pins: IssuerPins, issuer: string): string | null {
  const name = pins.server;
  if (pins.configured) {
    // the operator's word decides: another entry that only recorded this issuer is the impostor
    return sameIssuer(issuer, pins.configured)
      ? null
      : `its authorization server is not the one SERVERS pins (${name}.issuer = ${pins.configured})`;
  }
  if (pins.recorded && !sameIssuer(issuer, pins.recorded))
    return `its authorization server is not the one recorded at the first connect (${pins.recorded}); if it really moved, set ${name}.issuer in SERVERS`;
  const other = pins.others.find((o) => sameIssuer(o.issuer, issuer));
  if (other)
    return `its metadata names the authorization server of the SERVERS entry ${other.server} (an authorization-server mix-up); set ${name}.issuer and ${other.server}.issuer in SERVERS if the two really share one`;
  return null;
}

/** RFC 8414 section 3.3: the metadata's issuer is the URL its metadata was fetched for. */
export function issuerMismatch(fetchedFor: string, issuer: unknown): string | null {
  return typeof issuer === "string" && sameIssuer(fetchedFor, issuer)
    ? null
    : "the authorization server's metadata names an issuer other than its own URL (RFC 8414 section 3.3)";
}

/** RFC 9207: why the callback's `iss` is refused for metadata `m`, or null. Compared as written (section 2.4). */
export function callbackIssRefusal(
  m: { issuer: string; authorization_response_iss_parameter_supported?: unknown },
  iss?: string,
): string | null {
  if (iss !== undefined && iss !== m.issuer) return "the authorization response names another authorization server (RFC 9207 iss)";
  if (iss === undefined && m.authorization_response_iss_parameter_supported === true)
    return "the authorization response lacks the iss its authorization server promises (RFC 9207)";
  return null;
}
