// The POLICY var (wrangler.toml [vars.POLICY]) as one strict zod schema: deferral (threshold,
// unknownModel, models), profiles, the listing budget, the access rules (core/access.ts), the
// approval rules (core/approval-rules.ts) and the default model. It is a table in wrangler.toml, or
// JSON text (`wrangler dev --var POLICY:<json>`, a dashboard variable). Every table is strict, so a misspelled key is an error naming it (config/check.ts)
// rather than a rule silently dropped. A new section is one more key of PolicyVar; readPolicy adds
// the defaults (core/policy.ts DEFAULT_POLICY) for what the deployment leaves out.

import { z } from "zod";
import { LISTING_FORMS } from "../core/listing.ts";
import { DEFAULT_POLICY, type PolicyConfig } from "../core/policy.ts";
import { REMEMBER_RE } from "../core/approval-rules.ts";
import { configInvalid, parseVar } from "./check.ts";

function jsonText(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw configInvalid("POLICY: given as text, it must be JSON (a table in wrangler.toml needs no quoting)");
  }
}

const patterns = z.array(z.string({ message: "must be a list of patterns" }), { message: "must be a list of patterns" });
const names = z.array(z.string({ message: "must be a list of exposed tool names" }), { message: "must be a list of exposed tool names" });
const hints = z
  .object({ readOnlyHint: z.boolean(), destructiveHint: z.boolean(), idempotentHint: z.boolean(), openWorldHint: z.boolean() })
  .partial()
  .strict();

const AccessLayer = z.object({ allow: patterns, deny: patterns, denyAnnotations: hints, requireAnnotations: hints }).partial().strict();

const AccessVar = z
  .object({ disabled: patterns, default: AccessLayer, tenants: z.record(z.string(), AccessLayer) })
  .partial()
  .strict();

const ApprovalLayer = z
  .object({
    ask: patterns,
    remember: z.string().regex(REMEMBER_RE, 'must be "call", "session" or minutes such as "15m"'),
  })
  .partial()
  .strict();

const ApprovalVar = z
  .object({ default: ApprovalLayer, tenants: z.record(z.string(), ApprovalLayer) })
  .partial()
  .strict();

const listing = ["auto", ...LISTING_FORMS] as const;
const Profile = z
  .object({
    coreTools: names,
    subAgent: z.boolean(),
    tools: names,
    listing: z.enum(listing, { message: `must be "auto" or one of ${LISTING_FORMS.join(", ")}` }),
  })
  .partial()
  .strict();

const share = (what: string) => z.number({ message: what }).min(0, what).max(1, what);

const Model = z.object({ family: z.string(), contextWindow: z.number().int().positive(), toolSearch: z.boolean() }).partial().strict();

export const PolicyVar = z
  .object({
    threshold: share("must be a share of the context window from 0 to 1"),
    unknownModel: z
      .object({ contextWindow: z.number().int().positive(), deferAbove: share("must be a share of the context window from 0 to 1") })
      .partial()
      .strict(),
    models: z.record(z.string(), Model),
    profiles: z.record(z.string(), Profile),
    listingBudget: share("must be a share of the context window from 0 to 1"),
    access: AccessVar,
    approval: ApprovalVar,
    defaultModel: z.string().min(1),
  })
  .partial()
  .strict();

/** POLICY checked whole, with the defaults for what it leaves out. */
export function readPolicy(raw: unknown): PolicyConfig {
  const p = parseVar("POLICY", PolicyVar, typeof raw === "string" ? jsonText(raw) : raw);
  return {
    threshold: p.threshold ?? DEFAULT_POLICY.threshold,
    unknownModel: { ...DEFAULT_POLICY.unknownModel, ...p.unknownModel },
    models: { ...p.models },
    profiles: { default: {}, ...p.profiles },
    listingBudget: p.listingBudget ?? DEFAULT_POLICY.listingBudget,
    ...(p.access ? { access: p.access } : {}),
    ...(p.approval ? { approval: p.approval } : {}),
    defaultModel: p.defaultModel ?? DEFAULT_POLICY.defaultModel,
  };
}
