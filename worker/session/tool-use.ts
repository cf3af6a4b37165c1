// What a session object does with tools, behind SessionDO's RPC: the tool gate for this session
// (core/gate.ts: its frozen rules, the deployment's rules sent with every use, its profile's
// whitelist), activations (a toolSearch, or a load a call or tool_choice makes), the one execution
// path (execution.ts), and the gateway's upstream resources and prompts (resource-gate.ts), each
// upstream request counted against the calling key's quota. Each writes its audit rows in the
// transaction of the state they describe; the alarm delivers them.

import { argsDigest } from "../core/call-result.ts";
import { approvalGate, gateLoads, serverGate, toolGate, type Gate, type LiveRules } from "../core/gate.ts";
import { ApprovalsClient } from "../approvals/approvals-client.ts";
import type { GatewayResourceOp, ResourceOutcome } from "../core/mcp-resources.ts";
import type { ActivationAudit, ActivationResult } from "../core/tool-search.ts";
import { loadCatalog, type LoadedCatalog } from "../catalogs.ts";
import { settings } from "../settings.ts";
import type { SessionAlarm } from "./alarm.ts";
import { admit } from "./quota-client.ts";
import type { CallsInFlight } from "./calls-in-flight.ts";
import { executeCall, type CallContext, type CallOutcome } from "./execution.ts";
import { serveResources, type ResourceLinks } from "./resource-gate.ts";
import type { ServerSessions } from "./server-sessions.ts";
import type { SessionStore } from "./session-store.ts";
import type { SessionInit } from "./state.ts";
import type { TokenCache } from "./token-cache.ts";

/** how long after a call starts the object wakes, in case the instance died meanwhile */
const SETTLE_AFTER_MS = 60_000;

/** The object's parts tool use needs (built by SessionDO). */
export interface ToolParts {
  storage: DurableObjectStorage;
  env: Env;
  store: SessionStore;
  servers: ServerSessions;
  links: ResourceLinks;
  calls: CallsInFlight;
  wake: SessionAlarm;
  tokens: TokenCache;
  /** plan the alarm (lifecycle.ts): rows written are delivered in a batch about a second later */
  schedule: () => Promise<void>;
}

export class ToolUse {
  private readonly p: ToolParts;

  constructor(p: ToolParts) {
    this.p = p;
  }

  /** The one tool gate for this session, and its catalog. */
  async gate(init: SessionInit, rules: LiveRules): Promise<{ gate: Gate; catalog: LoadedCatalog }> {
    const catalog = await loadCatalog(init.catalogFile);
    return { gate: toolGate(catalog.tools, catalog.byName, init, rules), catalog };
  }

  /** The parts of the execution path and the resource gate that both need. */
  private io(init: SessionInit) {
    const { store, storage, servers, tokens, env } = this.p;
    return {
      init,
      writeAudit: (events: Parameters<SessionStore["writeAudit"]>[1]) => void store.writeAudit(init, events),
      transaction: <T>(fn: () => T): T => storage.transactionSync(fn),
      servers,
      accounts: tokens,
      // each upstream request counts against the calling key's quota, in this object's isolate (quota-client.ts)
      upstream: (context: CallContext) => admit({ env, tenant: init.tenant ?? "", key: context.keyId ?? "" }, "upstream"),
    };
  }

  /** Activate `names` (see SessionDO.activate); null: no session. */
  async activate(names: string[], query: string, audit: ActivationAudit, rules: LiveRules): Promise<ActivationResult | null> {
    const init = this.p.store.init();
    if (!init) return null;
    const { gate } = await this.gate(init, rules);
    const { allowed, refused, denied } = gateLoads(gate, names, audit.denied ?? []);
    const digest = await argsDigest({ query });
    // one transaction: a failure part-way (storage error, reset) must not leave half an activation
    const result = this.p.storage.transactionSync(() => this.p.store.activate(allowed, query, { ...audit, denied }, digest));
    if (result) void this.p.schedule();
    return result && (refused.length ? { ...result, denied: refused.map((d) => d.name) } : result);
  }

  /** Run one catalog tool on its server: the one execution path (execution.ts). Null: no session. */
  async call(name: string, args: unknown, context: CallContext, rules: LiveRules): Promise<CallOutcome | null> {
    const { store, wake, calls, links, env } = this.p;
    const init = store.init();
    if (!init) return null;
    store.touch(); // a call is use: committed with the call's own writes, not by a get() of its own
    const { gate, catalog } = await this.gate(init, rules);
    const outcome = await executeCall(
      {
        ...this.io(init),
        activations: store.activationNames(),
        gate,
        approval: approvalGate(catalog.byName, rules),
        approvals: ApprovalsClient.of(env, { tenant: init.tenant ?? "", user: init.user ?? "" }),
        activate: (names, query, audit) => this.activate(names, query, audit, rules),
        begin: (event, key) => {
          // should this instance die mid-call, an alarm wakes the object to settle the row (unknown) and deliver it
          void wake.wakeBy(Date.now() + SETTLE_AFTER_MS);
          return calls.begin((e) => store.writeAudit(init, [{ ...event, ...e }])[0]!, key);
        },
      },
      { settings: settings(env), catalog },
      name,
      args,
      context,
    );
    // the resource URIs a result hands the client are readable through the gateway (resource-gate.ts)
    const server = catalog.byName.get(name)?.server;
    if (outcome?.ok && server && init.mcp) links.noteResult(server, outcome.result);
    void this.p.schedule();
    return outcome;
  }

  /** The gateway's upstream resources and prompts (resource-gate.ts). Null: no session. */
  async resources(op: GatewayResourceOp, context: CallContext, rules: LiveRules): Promise<ResourceOutcome | null> {
    const init = this.p.store.init();
    if (!init) return null;
    this.p.store.touch();
    // the session's servers the rules allow now (core/gate.ts serverGate): a server with a denied tool serves only where allow names it
    const catalog = await loadCatalog(init.catalogFile);
    const why = serverGate(catalog.tools, init, rules);
    const closed = new Map<string, string>();
    for (const server of init.mcp?.servers ?? []) {
      const reason = why(server);
      if (reason) closed.set(server, reason);
    }
    const serving = (init.mcp?.servers ?? []).filter((s) => !closed.has(s));
    const outcome = await serveResources({ ...this.io(init), serving, closed, links: this.p.links }, settings(this.p.env), op, context);
    void this.p.schedule();
    return outcome;
  }
}
