// Defer or not. A session is `deferred` (names in the system prompt, toolSearch, schemas loaded
// on demand) or `full` (every tool injected, no toolSearch). Full mode when deferral is off, for
// sub-agent profiles, for models not known to handle tool search, and when the deferrable tools'
// schemas are at most `threshold` of the context window (deferral would save little and cost a hop).
// A deferred session's listing form (listing-choice.ts) fits `listingBudget` of the same window.

import type { AccessConfig } from "./access.ts";
import type { ApprovalConfig } from "./approval-rules.ts";
import { ToolsearchError } from "./errors.ts";
import type { ListingRequest } from "./listing.ts";
import { lookupModel, type ModelOverrides } from "./models.ts";

export interface Profile {
  /** tools always in the tools list (exposed names), in this order, after alwaysLoad tools */
  coreTools?: string[];
  /** a sub-agent profile: exactly these tools, never deferred */
  subAgent?: boolean;
  tools?: string[];
  /** the listing form of this profile's sessions, unless a session asks for another (default auto) */
  listing?: ListingRequest;
}

export interface PolicyConfig {
  /** full mode when deferrable schema tokens <= threshold * context window (default 0.1) */
  threshold: number;
  /** unknown models: assumed context window, and defer only when the full catalog exceeds this share of it */
  unknownModel: { contextWindow: number; deferAbove: number };
  models: ModelOverrides;
  profiles: Record<string, Profile>;
  /** `auto` listing: the richest form whose section fits this share of the model's context window */
  listingBudget: number;
  /** who may see and call which tool (core/access.ts); absent: every tool for every tenant */
  access?: AccessConfig;
  /** which calls need a person's yes first (core/approval-rules.ts); absent: none */
  approval?: ApprovalConfig;
  /** the model of sessions that name none (MCP clients, which cannot send one) */
  defaultModel: string;
}

export const DEFAULT_POLICY: PolicyConfig = {
  threshold: 0.1,
  unknownModel: { contextWindow: 128_000, deferAbove: 0.5 },
  models: {},
  profiles: { default: {} },
  listingBudget: 0.02,
  defaultModel: "claude-sonnet-4-5",
};

export type Deferral = "auto" | "on" | "off";
export type Mode = "deferred" | "full";

export interface PolicyInput {
  model: string;
  profile: string;
  deferral: Deferral;
  contextWindow?: number;
  /** schema tokens of the tools that could be deferred (catalog counts) */
  deferrableTokens: number;
}

export interface Decision {
  mode: Mode;
  reason: string;
}

export function resolveProfile(config: PolicyConfig, name: string): Profile {
  const profile = config.profiles[name] ?? (name === "default" ? {} : undefined);
  if (!profile) {
    const known = Object.keys(config.profiles).join(", ") || "default";
    throw new ToolsearchError("bad_request", `unknown profile "${name}" (known: ${known})`);
  }
  return profile;
}

export function decideMode(config: PolicyConfig, input: PolicyInput): Decision {
  const profile = resolveProfile(config, input.profile);
  const tokens = input.deferrableTokens;
  if (input.deferral === "off") return { mode: "full", reason: "deferral is off for this session" };
  if (profile.subAgent) return { mode: "full", reason: `profile "${input.profile}" is a sub-agent profile: its tools are always loaded` };
  if (input.deferral === "on") return { mode: "deferred", reason: "deferral is on for this session" };
  const model = lookupModel(input.model, config.models);
  if (!model) {
    const window = input.contextWindow ?? config.unknownModel.contextWindow;
    const limit = Math.floor(window * config.unknownModel.deferAbove);
    return tokens > limit
      ? {
          mode: "deferred",
          reason: `unknown model "${input.model}": the tools (${tokens} tokens) do not fit in ${config.unknownModel.deferAbove * 100}% of its assumed ${window}-token context`,
        }
      : {
          mode: "full",
          reason: `unknown model "${input.model}": the tools (${tokens} tokens) fit in ${config.unknownModel.deferAbove * 100}% of its assumed ${window}-token context`,
        };
  }
  if (!model.toolSearch) return { mode: "full", reason: `model ${model.family} is not known to handle tool search` };
  const window = input.contextWindow ?? model.contextWindow;
  const limit = Math.floor(window * config.threshold);
  return tokens <= limit
    ? {
        mode: "full",
        reason: `deferrable tools (${tokens} tokens) are at most ${config.threshold * 100}% of ${model.family}'s ${window}-token context`,
      }
    : {
        mode: "deferred",
        reason: `deferrable tools (${tokens} tokens) exceed ${config.threshold * 100}% of ${model.family}'s ${window}-token context`,
      };
}

/** The context window a session is planned for, and how to name it in a reason. */
export function contextWindow(config: PolicyConfig, input: Pick<PolicyInput, "model" | "contextWindow">): { tokens: number; of: string } {
  const model = lookupModel(input.model, config.models);
  const tokens = input.contextWindow ?? model?.contextWindow ?? config.unknownModel.contextWindow;
  const assumed = input.contextWindow === undefined ? "assumed " : "";
  return {
    tokens,
    of: model ? `${model.family}'s ${tokens}-token context` : `unknown model "${input.model}"'s ${assumed}${tokens}-token context`,
  };
}
