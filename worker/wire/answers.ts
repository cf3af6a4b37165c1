// What the REST routes answer, as zod schemas: the one source of the response types. The routes
// build their answers `satisfies` these types, the page imports them as types only (esbuild drops
// them), and the worker tests parse every answer they read with these schemas (strict: a field a
// route adds without adding it here fails them), so the three cannot drift apart.

import { z } from "zod";
import { AUDIT_OUTCOMES } from "../core/audit.ts";
import { LISTING_FORMS } from "../core/listing.ts";

const mode = z.enum(["deferred", "full"]);
const listing = z.enum(LISTING_FORMS).nullable();
const names = z.array(z.string());
const count = z.number().int().min(0);

const catalogRef = z.object({ name: z.string(), version: z.string(), hash: z.string() }).strict();

/** The prompt of a session as the model gets it: GET /v1/sessions/:id/prompt, and in POST /v1/sessions. */
export const promptAnswer = z
  .object({ system: z.string(), tools: z.array(z.unknown()), prefixHash: z.string(), promptCacheKey: z.string() })
  .strict();
export type PromptAnswer = z.infer<typeof promptAnswer>;

const sessionFields = {
  id: z.string(),
  mode,
  reason: z.string(),
  /** the frozen listing form; null in full mode */
  listing,
  activation: z.enum(["inject", "proxy"]),
  execution: z.enum(["client", "edge"]),
  catalog: catalogRef,
};

/** POST /v1/sessions (201). */
export const createdSession = z.object({ ...sessionFields, prompt: promptAnswer }).strict();
export type CreatedSession = z.infer<typeof createdSession>;

/** The plan for the tools a chat client declares (core/client-tools.ts ClientPlan, without its section). */
export const clientToolsAnswer = z.object({ hash: z.string(), kept: names, deferred: count, core: names, reason: z.string() }).strict();
export type ClientToolsAnswer = z.infer<typeof clientToolsAnswer>;

/** GET /v1/sessions/:id. */
export const sessionInfo = z
  .object({
    ...sessionFields,
    model: z.string(),
    profile: z.string(),
    activations: names,
    clientTools: clientToolsAnswer.nullable(),
    /**
     * The calls the Worker ran, per surface (`rest`: POST .../tools/:name/call, `chat`: edge
     * rounds, `mcp`: the gateway). `execution` is what the chat endpoint was asked to do; a
     * client-execution session can still have calls the Worker ran through the REST route.
     */
    workerCalls: z.array(z.object({ via: z.string(), calls: count }).strict()),
    createdAt: z.string(),
  })
  .strict();
export type SessionInfo = z.infer<typeof sessionInfo>;

/** POST /v1/sessions/:id/tool-search. */
export const searchAnswer = z
  .object({
    result: z.string(),
    loaded: names,
    alreadyLoaded: names,
    matches: z.array(
      z.object({ name: z.string(), description: z.string(), score: z.number(), words: names, fields: z.array(z.string()) }).strict(),
    ),
  })
  .strict();
export type SearchAnswer = z.infer<typeof searchAnswer>;

/** A chat message as a splice stores it (core/chat.ts ChatMessage): the fields the page reads, the rest as they are. */
const message = z
  .object({
    role: z.string(),
    content: z.unknown().optional(),
    // a tool call's other fields (id, type) pass unchecked: only these are read
    tool_calls: z.array(z.object({ function: z.object({ name: z.string(), arguments: z.string() }) })).optional(),
  })
  .passthrough();

/** GET /v1/sessions/:id/history (times as ISO strings). */
export const historyAnswer = z
  .object({
    id: z.string(),
    activations: z.array(z.object({ name: z.string(), at: z.string() }).strict()),
    searches: z.array(z.object({ at: z.string(), query: z.string(), loaded: names }).strict()),
    splices: z.array(
      z
        .object({
          seq: count,
          at: count,
          prefix: z.string(),
          hidden: z.array(message),
          reply: z.object({ sig: z.string(), upstream: message }).strict(),
        })
        .strict(),
    ),
  })
  .strict();
export type HistoryAnswer = z.infer<typeof historyAnswer>;

/** One audit event (core/audit.ts auditEvent). */
export const auditEvent = z
  .object({
    id: z.string(),
    at: z.string(),
    type: z.enum(["search", "activation", "call", "denial", "resource", "prompt", "run", "approval"]),
    session: z.string(),
    tool: z.string().nullable(),
    server: z.string().nullable(),
    decision: z.enum(["allow", "deny"]),
    outcome: z.enum(AUDIT_OUTCOMES),
    durationMs: count,
    argsDigest: z.string().nullable(),
    argsBytes: count,
    resultBytes: count,
    detail: z.string().nullable(),
    via: z.string(),
    /** the client program (MCP clientInfo `name/version`); null where the surface names none */
    client: z.string().nullable(),
    /** the user of the session's principal (API_KEYS); null where the key names none */
    user: z.string().nullable(),
    /** the code-mode run (POST /v1/sessions/:id/code) the event belongs to; null for all else */
    run: z.string().nullable(),
    /** the approval (POLICY.approval) the event asked for, decided or was released by; null for all else */
    approval: z.string().nullable(),
    /** argument values, only with AUDIT_ARGUMENTS=store */
    arguments: z.unknown().optional(),
  })
  .strict();
export type AuditEvent = z.infer<typeof auditEvent>;

/** GET /v1/audit and GET /v1/sessions/:id/audit: newest first; `cursor` for the next page, or null. */
export const auditPageAnswer = z.object({ events: z.array(auditEvent), cursor: z.string().nullable() }).strict();
export type AuditPageAnswer = z.infer<typeof auditPageAnswer>;

/** `declaration`: the tool as a TypeScript declaration (code mode), when the catalog counted it */
const tokens = { definition: count, name: count, short: count, declaration: count.optional() };

/** A catalog server with its metadata and token sums (core/summary.ts ServerSummary). */
const serverSummary = z
  .object({
    name: z.string(),
    transport: z.enum(["stdio", "http", "sse", "recorded"]),
    tools: count,
    serverInfo: z.object({ name: z.string(), version: z.string() }).strict().nullable(),
    title: z.string().optional(),
    description: z.string().optional(),
    summary: z.string(),
    tokens: z.object({ full: count, names: count, grouped: count, servers: count, core: count }).strict(),
  })
  .strict();

/** GET /v1/catalog: the pinned catalog, its servers and its token totals. */
export const catalogInfo = z
  .object({
    ...catalogRef.shape,
    label: z.string(),
    file: z.string(),
    encoding: z.string(),
    servers: z.array(serverSummary),
    tools: count,
    tokens: z
      .object({
        fullInjection: count,
        /** what a session's policy weighs (its reason states it): every tool but the alwaysLoad ones */
        deferrable: count,
        deferredNames: count,
        coreTools: count,
        /** every tool as a TypeScript declaration (code mode); null for a catalog built before code mode */
        declarations: count.nullable(),
        /** the system section of each listing form, for the tools that are not alwaysLoad */
        listing: z.object({ names: count, grouped: count, servers: count, none: count }).strict(),
      })
      .strict(),
  })
  .strict();
export type CatalogInfo = z.infer<typeof catalogInfo>;

/** GET /v1/catalog/tools: every tool without its schemas (core/summary.ts ToolRow). */
export const catalogTools = z
  .object({
    label: z.string(),
    tools: z.array(
      z
        .object({
          name: z.string(),
          server: z.string(),
          originalName: z.string(),
          title: z.string().optional(),
          description: z.string(),
          tokens: z.object(tokens).strict(),
          alwaysLoad: z.boolean(),
          search: z
            .object({
              hint: z.string().optional(),
              when: z.string().optional(),
              queries: z.array(z.string()).optional(),
              keywords: z.array(z.string()).optional(),
            })
            .strict()
            .optional(),
        })
        .strict(),
    ),
  })
  .strict();
export type CatalogTools = z.infer<typeof catalogTools>;

/** GET /v1/catalog/policy: what POST /v1/sessions would freeze for the caller's tenant. */
export const policyAnswer = z
  .object({
    model: z.string(),
    profile: z.string(),
    deferral: z.enum(["auto", "on", "off"]),
    contextWindow: z.number().int().optional(),
    execution: z.enum(["client", "edge"]),
    mode,
    reason: z.string(),
    listing,
    coreTools: names,
    deferredTools: count,
    access: z.object({ rules: z.string(), catalogTools: count, visibleTools: count, deniedTools: count }).strict(),
  })
  .strict();
export type PolicyAnswer = z.infer<typeof policyAnswer>;

/** GET /healthz: the pinned catalog, and what is wrong with the settings for it (`ok` is false while there are `problems`). */
export const healthAnswer = z
  .object({
    ok: z.boolean(),
    catalog: z.string(),
    tools: count,
    catalogLoadMs: z.number(),
    problems: names,
    warnings: names,
    /** code mode: whether runCode can run here, the engine, and why not (then no session is offered runCode) */
    code: z.object({ available: z.boolean(), engine: z.string(), reason: z.string().optional() }).strict(),
  })
  .strict();
export type HealthAnswer = z.infer<typeof healthAnswer>;
