// When a session object's storage goes: the plan of its one alarm (the session's expiry, the audit
// outbox's delivery), the alarm's own work (settle calls an earlier instance left, deliver, prune
// past retention, expire), deletion (its server sessions are closed), and dropping the storage
// once nothing is left to keep. The object (session-do.ts) owns the tables and the RPC; this owns
// their end. The schema flag lives here: an object only ever read or probed must not get storage
// (schema.ts).

import { resolveHeaders } from "../core/servers.ts";
import { retentionCutoff, type TenantQuotas } from "../quotas.ts";
import { settings, type Settings } from "../settings.ts";
import type { SessionAlarm } from "./alarm.ts";
import { outboxWaits, pruneDelivered, type Outbox } from "./audit-store.ts";
import type { CallsInFlight } from "./calls-in-flight.ts";
import { closeRemote } from "./mcp-client.ts";
import type { ResponseStore } from "./response-store.ts";
import { hasSchema, migrate } from "./schema.ts";
import type { ServerSessions } from "./server-sessions.ts";
import type { SessionStore } from "./session-store.ts";

/** What the lifecycle works on: the object's storage and its stores (built by the object). */
export interface SessionParts {
  storage: DurableObjectStorage;
  env: Env;
  store: SessionStore;
  servers: ServerSessions;
  responses: ResponseStore;
  calls: CallsInFlight;
  wake: SessionAlarm;
  outbox: () => Outbox;
  quotas: () => TenantQuotas;
}

export class SessionLifecycle {
  /** whether the schema exists (schema.ts) */
  hasSchema: boolean;
  private readonly p: SessionParts;

  constructor(p: SessionParts) {
    this.p = p;
    this.hasSchema = hasSchema(p.storage.sql);
  }

  /** Create the tables (and those a newer version adds). */
  migrate(): void {
    migrate(this.p.storage.sql);
    this.hasSchema = true;
  }

  /**
   * The one alarm (alarm.ts): at or before the earlier of the session's expiry and the outbox's
   * delivery (about a second after rows appear, so rows go to D1 in batches; longer after
   * failures), or none when neither is left. An alarm already set earlier stays (its handler
   * re-checks and moves it). Computed and issued with no await in between.
   */
  schedule(): Promise<void> {
    if (!this.hasSchema) return Promise.resolve();
    const { store, storage, outbox, wake } = this.p;
    const r = store.row();
    if (!r) storage.sql.exec("DELETE FROM audit WHERE delivered = 1");
    const expiry = r ? r.last_used_at + r.ttl_ms : Infinity;
    const retry = outboxWaits(storage.sql) ? Date.now() + Math.max(outbox().retryMs, 1000) : Infinity;
    return wake.plan(Math.min(expiry, retry));
  }

  /**
   * Delete the session: cancel its calls in flight (the server is told; their rows end
   * `cancelled`), close its upstream MCP sessions (HTTP DELETE), then remove everything it stored
   * except audit rows D1 does not have yet. False if there was no session.
   */
  async remove(): Promise<boolean> {
    const { store, servers, responses, storage, calls, env } = this.p;
    const init = store.init();
    if (!init) return false;
    calls.abortAll("the session was deleted");
    await closeServerSessions(servers, settings(env), init.id);
    storage.transactionSync(() => {
      store.clear();
      servers.clear();
      responses.clear();
      storage.sql.exec("DELETE FROM audit WHERE delivered = 1");
    });
    if (outboxWaits(storage.sql)) await this.p.outbox().kick();
    if (!(await this.dropIfEmpty())) await this.schedule();
    return true;
  }

  /** Nothing left to keep (no session, no row D1 lacks, no call in flight): drop the storage. */
  private async dropIfEmpty(): Promise<boolean> {
    const { store, calls, storage, wake } = this.p;
    if (store.row() || calls.size) return false;
    if (this.hasSchema && storage.sql.exec("SELECT 1 FROM audit WHERE delivered = 0 LIMIT 1").toArray().length) return false;
    // first: nothing that runs while deleteAll() is awaited may use the tables
    this.hasSchema = false;
    wake.dropped();
    await storage.deleteAll(); // also the alarm
    return true;
  }

  /** Audit rows D1 has and search events past the tenant's retention go (QUOTAS.auditRetentionDays). */
  private prune(): void {
    const cutoff = retentionCutoff(this.p.quotas().auditRetentionDays);
    if (cutoff === null) return;
    this.p.storage.transactionSync(() => {
      pruneDelivered(this.p.storage.sql, cutoff);
      this.p.store.pruneEvents(cutoff);
    });
  }

  /** The alarm's work; it may fire more than once: delivery is idempotent, and expiry checks the clock. */
  async alarm(): Promise<void> {
    if (!this.hasSchema) return void (await this.p.storage.deleteAll()); // an object that only ever got probed
    this.p.calls.settle();
    await this.p.outbox().kick();
    this.prune();
    this.p.store.reload();
    const r = this.p.store.row();
    if (r && Date.now() >= r.last_used_at + r.ttl_ms) await this.remove();
    if (!(await this.dropIfEmpty())) await this.schedule();
  }
}

/** Close every server session of a session that ends (HTTP DELETE; failures only logged). */
async function closeServerSessions(servers: ServerSessions, cfg: Settings, sessionId: string): Promise<void> {
  await Promise.all(
    servers.all().map(async (r) => {
      const server = cfg.servers.get(r.server);
      // a server of per-user tokens: no token is fetched to end a session; the server expires it
      if (!server || server.oauth) return;
      try {
        const { headers } = resolveHeaders(r.server, server, cfg.secret);
        await closeRemote(server, headers, r);
      } catch (e) {
        console.warn(`session ${sessionId}: closing the ${r.server} MCP session failed: ${(e as Error).message}`);
      }
    }),
  );
}
