// The enrichment prompt of `catalog enrich`, versioned: what the model is told about one tool, the
// JSON schema its answer must follow (structured output) and the zod schema every answer is
// checked with. Change the wording or the rules and bump PROMPT_VERSION: entries record it
// (`by`), so a file says which prompt wrote each of its entries.

import { z } from "zod";
import { canonicalJson } from "../../worker/core/canonical.ts";
import type { DescribedTool } from "./search-text-file.ts";

export const PROMPT_VERSION = "1";
/** the structured-output schema's name: how a scripted model (test/fixtures) knows the request */
export const ANSWER_NAME = "tool_search_text";

export const QUERIES = 6;
export const KEYWORDS = { min: 8, max: 12 };
const HAN = /\p{Script=Han}/u;

/** The answer, checked: lengths, counts, and a Chinese request when asked for. */
export function answerSchema(chinese: boolean) {
  const words = (s: string) => s.trim().split(/\s+/).length;
  const query = z
    .string()
    .trim()
    .min(3)
    .max(200)
    .refine((s) => HAN.test(s) || (words(s) >= 2 && words(s) <= 25), "a request is 2-25 words");
  return z
    .object({
      when: z.string().trim().min(20, "at least 20 characters").max(400, "at most 400 characters"),
      queries: z.array(query).length(QUERIES, `exactly ${QUERIES}`),
      keywords: z
        .array(z.string().trim().min(1).max(60))
        .min(KEYWORDS.min, `at least ${KEYWORDS.min}`)
        .max(KEYWORDS.max, `at most ${KEYWORDS.max}`),
    })
    .strict()
    .refine((a) => !chinese || a.queries.some((q) => HAN.test(q)), "queries: one must be in Simplified Chinese");
}
export type EnrichAnswer = z.infer<ReturnType<typeof answerSchema>>;

/** response_format for chat completions: the answer's JSON schema, strict. */
export const RESPONSE_FORMAT = {
  type: "json_schema" as const,
  json_schema: {
    name: ANSWER_NAME,
    strict: true,
    schema: {
      type: "object",
      additionalProperties: false,
      required: ["when", "queries", "keywords"],
      properties: {
        when: { type: "string" },
        queries: { type: "array", items: { type: "string" }, minItems: QUERIES, maxItems: QUERIES },
        keywords: { type: "array", items: { type: "string" }, minItems: KEYWORDS.min, maxItems: KEYWORDS.max },
      },
    },
  },
};

const SYSTEM = (chinese: boolean) =>
  [
    "You write search text for one tool of an AI agent's tool catalog. A search engine indexes it so that the agent finds",
    "the tool from what a person types; nobody reads it. Use only the tool definition given: describe only what the tool",
    "really does. Answer with JSON:",
    '- "when": one sentence in plain user language: what a person wants when this tool is the right one, and how it',
    "  differs from its closest sibling tools (listed by name).",
    `- "queries": ${QUERIES} short, varied requests a user might type to an agent that this tool answers directly (different`,
    "  vocabulary: synonyms, everyday words, product names, the task behind it), 5-15 words each" +
      (chinese ? `, one of the ${QUERIES} in Simplified Chinese.` : "."),
    `- "keywords": ${KEYWORDS.min}-${KEYWORDS.max} search words or short phrases not already in the tool's name (synonyms, everyday`,
    "  terms, abbreviations, the product's own vocabulary" + (chinese ? ", 2-3 Chinese terms)." : ")."),
  ].join("\n");

/** The messages for one tool: the rules, then the tool's definition and its siblings' names. */
export function enrichMessages(tool: DescribedTool, siblings: readonly string[], chinese: boolean) {
  const definition = canonicalJson({
    name: tool.originalName,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
  });
  const others = siblings.filter((n) => n !== tool.originalName);
  return [
    { role: "system" as const, content: SYSTEM(chinese) },
    {
      role: "user" as const,
      content: [
        `Server: ${tool.server}`,
        `Sibling tools on this server: ${others.length ? others.join(", ") : "(none)"}`,
        "Tool definition:",
        "```json",
        definition,
        "```",
      ].join("\n"),
    },
  ];
}
