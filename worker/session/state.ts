// What a session holds, as its Durable Object (session-do.ts) stores and answers it: the fields
// frozen at creation (SessionInit), the live state (activations, times), and its history for
// reading. Shared by every surface that reaches a session.

import type { AccessRules } from "../core/access.ts";
import type { Activation as ActivationMode } from "../core/chat.ts";
import type { ClientPlan } from "../core/client-tools.ts";
import type { ListingForm } from "../core/listing.ts";
import type { Deferral, Mode } from "../core/policy.ts";
import type { Splice } from "../core/splice.ts";

export interface SessionInit {
  id: string;
  catalogFile: string;
  catalogHash: string;
  model: string;
  profile: string;
  mode: Mode;
  /** how activated tools reach the model on the chat endpoint: appended to tools, or via callTool */
  activation: ActivationMode;
  reason: string;
  systemSection: string;
  coreTools: string[];
  /** deferred sessions: the listing form of systemSection */
  listing?: ListingForm;
  ttlMs: number;
  /** what the session was asked for (absent in sessions stored before client tools: "auto") */
  deferral?: Deferral;
  contextWindow?: number;
  /** the plan for the tools the client declares on the chat endpoint; absent: none declared */
  clientTools?: ClientPlan;
  /** the API key's tenant (sessions from before edge execution: read from the object's name) */
  tenant?: string;
  /** the API key's user (absent: the key names none); with the tenant, the principal per-user accounts are kept under */
  user?: string;
  /** the tenant's access rules, frozen with the prompt (absent: every tool) */
  access?: AccessRules;
  /** the profile's `tools` whitelist, frozen (sub-agent profiles): nothing else loads or runs (core/gate.ts) */
  whitelist?: string[];
  /** who runs catalog tools on the chat endpoint: the client (default) or the Worker */
  execution?: "client" | "edge";
  /** code mode (worker/code/): runCode is offered, toolSearch answers TypeScript declarations; absent: off */
  code?: "on";
  /** AUDIT_ARGUMENTS=store when the session started: audit rows keep argument values */
  storeArguments?: boolean;
  /**
   * sessions of the MCP gateway: the negotiated protocol version, the frozen initialize
   * instructions, and the client program (initialize's clientInfo, `name/version`) for audit rows
   */
  /** `elicitation`: the client declared it can answer elicitation/create in form mode (approvals ask it) */
  mcp?: { protocolVersion: string; instructions: string; servers: string[]; client?: string; elicitation?: true };
}

export interface SessionState extends SessionInit {
  activations: string[];
  createdAt: number;
  lastUsedAt: number;
}

export interface SessionHistory {
  activations: Array<{ name: string; at: number }>;
  searches: Array<{ at: number; query: string; loaded: string[] }>;
  splices: Array<Splice & { seq: number }>;
}
