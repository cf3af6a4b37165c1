// `catalog enrich` as a library: find the tools whose search text is missing or stale, ask an
// OpenAI-compatible model for each (structured output, checked by zod, a bad answer asked again
// once), at most `concurrency` at a time, and write the file after every answer (atomically,
// sorted), so an interrupted run keeps what it finished and a rerun asks only for the rest.
// HTTP retries with backoff on 429/5xx and timeouts are the openai client's (maxRetries).

import type OpenAI from "openai";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { collectTools, type Draft } from "./build.ts";
import type { BuildConfig } from "./config.ts";
import { answerSchema, enrichMessages, PROMPT_VERSION, RESPONSE_FORMAT, type EnrichAnswer } from "./enrich-prompt.ts";
import { freshness, readSearchText, toolHash, toolKey, writeSearchText, type Freshness } from "./search-text-file.ts";
import { mapBounded } from "./snapshot.ts";

export interface EnrichOptions {
  client: OpenAI;
  model: string;
  concurrency: number;
  /** ask for one Chinese request per tool (and check there is one) */
  chinese: boolean;
  /** after each tool: done so far, of how many, and what happened */
  onTool?: (done: number, total: number, key: string, error?: string) => void;
}

export interface EnrichSummary {
  path: string;
  written: string[];
  /** tools whose text was fresh or hand-written: not asked for */
  kept: number;
  failed: Array<{ key: string; reason: string }>;
  unknown: string[];
  /** chat completions asked for (a bad answer asked again counts twice; the client's HTTP retries not at all) */
  requests: number;
  tokens: { prompt: number; completion: number; total: number };
}

/** The search-text file of a config, or a clear error when it names none. */
export function searchTextPath(config: BuildConfig): string {
  if (!config.searchText)
    throw new ToolsearchError("invalid_config", 'the config names no search-text file: add "searchText": "search-text.json" to it');
  return config.searchText;
}

/** What `--check` reports: the tools and the file's state, no model asked. */
export async function checkSearchText(config: BuildConfig): Promise<Freshness & { path: string; tools: number }> {
  const path = searchTextPath(config);
  const { drafts } = await collectTools(config);
  return { ...freshness(drafts, await readSearchText(path, true)), path, tools: drafts.length };
}

function checked(content: string | null | undefined, chinese: boolean): EnrichAnswer | string {
  let json: unknown;
  try {
    json = JSON.parse(content ?? "");
  } catch {
    return `not JSON: ${JSON.stringify((content ?? "").slice(0, 60))}`;
  }
  const answer = answerSchema(chinese).safeParse(json);
  if (answer.success) return answer.data;
  const issue = answer.error.issues[0]!;
  return `wrong shape: ${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`;
}

export async function enrich(config: BuildConfig, opts: EnrichOptions): Promise<EnrichSummary> {
  const path = searchTextPath(config);
  const { drafts } = await collectTools(config);
  const entries = await readSearchText(path, true);
  const state = freshness(drafts, entries);
  const todo = drafts.filter((d) => !state.usable.has(toolKey(d)));
  const siblings = new Map<string, string[]>();
  for (const d of drafts) siblings.set(d.server, [...(siblings.get(d.server) ?? []), d.originalName]);
  const summary: EnrichSummary = {
    path,
    written: [],
    kept: state.usable.size,
    failed: [],
    unknown: state.unknown,
    requests: 0,
    tokens: { prompt: 0, completion: 0, total: 0 },
  };
  // one write at a time: each rename replaces the file with every entry finished so far
  let writing = Promise.resolve();
  const save = () => (writing = writing.then(() => writeSearchText(path, entries)));

  async function ask(d: Draft): Promise<EnrichAnswer> {
    let reason = "";
    for (let attempt = 0; attempt < 2; attempt++) {
      summary.requests++;
      const res = await opts.client.chat.completions.create({
        model: opts.model,
        messages: enrichMessages(d, siblings.get(d.server)!, opts.chinese),
        response_format: RESPONSE_FORMAT,
      });
      summary.tokens.prompt += res.usage?.prompt_tokens ?? 0;
      summary.tokens.completion += res.usage?.completion_tokens ?? 0;
      summary.tokens.total += res.usage?.total_tokens ?? 0;
      const answer = checked(res.choices[0]?.message?.content, opts.chinese);
      if (typeof answer !== "string") return answer;
      reason = answer;
    }
    throw new Error(`bad answer twice (${reason})`);
  }

  let done = 0;
  await mapBounded(todo, opts.concurrency, async (d) => {
    const key = toolKey(d);
    try {
      const answer = await ask(d);
      entries[key] = { ...answer, toolHash: toolHash(d), by: `${opts.model} (catalog enrich, prompt ${PROMPT_VERSION})` };
      summary.written.push(key);
      await save();
      opts.onTool?.(++done, todo.length, key);
    } catch (e) {
      const reason = (e as Error).message.split("\n")[0]!.slice(0, 200);
      summary.failed.push({ key, reason });
      opts.onTool?.(++done, todo.length, key, reason);
    }
  });
  await writing;
  summary.written.sort();
  summary.failed.sort((a, b) => (a.key < b.key ? -1 : 1));
  return summary;
}
