// Token counting with js-tiktoken, at build time only: the encoder costs ~1.5 s and ~66 MB to
// construct (o200k_base), far over a Worker's startup and memory budgets, so counts are computed
// here and stored in the catalog. Special-token text is counted as ordinary text. toolTokens: a
// tool's own counts (`catalog build`, and `catalog stats` in another encoding).

import { Tiktoken } from "js-tiktoken/lite";
import { canonicalJson } from "../../worker/core/canonical.ts";
import type { CatalogTool, Encoding } from "../../worker/core/catalog.ts";
import { toolDeclaration } from "../../worker/core/declarations.ts";
import { nameLine } from "../../worker/core/listing.ts";
import { openaiTool, toolDefinition } from "../../worker/core/prompt.ts";

export type TokenCounter = (text: string) => number;

const counters = new Map<Encoding, Promise<TokenCounter>>();

async function load(encoding: Encoding): Promise<TokenCounter> {
  const ranks =
    encoding === "o200k_base"
      ? (await import("js-tiktoken/ranks/o200k_base")).default
      : (await import("js-tiktoken/ranks/cl100k_base")).default;
  const enc = new Tiktoken(ranks);
  return (text) => enc.encode(text, [], []).length;
}

/** One counter per encoding per process (construction is the expensive part). */
export function tokenCounter(encoding: Encoding): Promise<TokenCounter> {
  let c = counters.get(encoding);
  if (!c) counters.set(encoding, (c = load(encoding)));
  return c;
}

/**
 * A tool's counts but its listing piece (listing-counts.ts): its OpenAI-form definition, its
 * `names` line, and its TypeScript declaration as a code-mode toolSearch shows it.
 */
export function toolTokens(
  t: Pick<CatalogTool, "name" | "originalName" | "description" | "inputSchema" | "outputSchema" | "title" | "annotations">,
  count: TokenCounter,
): { definition: number; name: number; declaration: number } {
  return {
    definition: count(canonicalJson(openaiTool(toolDefinition(t)))),
    name: count(nameLine(t.name)),
    declaration: count(toolDeclaration(t)),
  };
}
