// catalog enrich: write the missing and stale entries of the config's search-text file with an
// OpenAI-compatible model (lib/enrich.ts); --check (CI) names the tools lacking fresh text.

import { defineCommand } from "citty";
import OpenAI from "openai";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { configArg, fmtMs, out, progress } from "../args.ts";
import { loadConfig } from "../lib/config.ts";
import { checkSearchText, enrich } from "../lib/enrich.ts";
import { nameSome } from "../lib/search-text-file.ts";

function positive(name: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ToolsearchError("bad_request", `--${name} must be a whole number, got "${value}"`);
  return n;
}

/** A bar on a terminal, one line per tool otherwise (CI logs). */
function onTool(done: number, total: number, key: string, error?: string) {
  if (process.stderr.isTTY) {
    const width = 30;
    const full = Math.round((done / total) * width);
    process.stderr.write(
      `\r[${"#".repeat(full)}${".".repeat(width - full)}] ${done}/${total} ${error ? "FAIL" : "ok  "} ${key}`.padEnd(100),
    );
    if (done === total) process.stderr.write("\n");
  } else progress(`  ${String(done).padStart(String(total).length)}/${total} ${error ? `FAIL  ${key}: ${error}` : `ok    ${key}`}`);
}

export default defineCommand({
  meta: {
    name: "enrich",
    description:
      "Write search text (docs/search-text.md) for the tools whose entry in the config's searchText file is missing or " +
      "stale, with any OpenAI-compatible chat model (structured output, each answer checked; the file is written after " +
      "every answer, so a rerun continues). With --check, ask nothing and exit 1 naming the tools lacking fresh text.",
  },
  args: {
    config: configArg,
    check: { type: "boolean", description: "Ask no model; exit 1 naming the tools without fresh search text (CI)", default: false },
    "base-url": { type: "string", description: "OpenAI-compatible API base URL (default: env OPENAI_BASE_URL)", valueHint: "url" },
    model: { type: "string", description: "Model name (default: env OPENAI_MODEL)", valueHint: "name" },
    "api-key": { type: "string", description: "API key (default: env OPENAI_API_KEY; prefer the env)", valueHint: "key" },
    concurrency: { type: "string", description: "Tools asked for at once", default: "4", valueHint: "n" },
    retries: {
      type: "string",
      description: "HTTP retries per request, with backoff, on 429, 5xx and timeouts",
      default: "4",
      valueHint: "n",
    },
    "timeout-ms": { type: "string", description: "Time one request may take before it is retried", default: "120000", valueHint: "ms" },
    chinese: { type: "boolean", description: "Ask for one request in Simplified Chinese per tool (--no-chinese: none)", default: true },
  },
  async run({ args }) {
    const config = await loadConfig(args.config);
    if (args.check) {
      const c = await checkSearchText(config);
      for (const k of c.unknown) progress(`warning: search text key "${k}" names no tool`);
      const lacking = [...c.missing, ...c.stale].sort();
      if (!lacking.length) return out(`search text up to date: ${c.usable.size} of ${c.tools} tools in ${c.path}`);
      if (c.stale.length) progress(`stale (the tool changed since its text was written): ${c.stale.join(", ")}`);
      if (c.missing.length) progress(`missing: ${c.missing.join(", ")}`);
      throw new ToolsearchError(
        "catalog_mismatch",
        `${lacking.length} of ${c.tools} tools lack fresh search text in ${c.path} (${nameSome(lacking)}): run catalog enrich`,
      );
    }
    const baseURL = args["base-url"] ?? process.env.OPENAI_BASE_URL;
    const model = args.model ?? process.env.OPENAI_MODEL;
    const apiKey = args["api-key"] ?? process.env.OPENAI_API_KEY;
    if (!model) throw new ToolsearchError("bad_request", "no model: pass --model or set OPENAI_MODEL");
    if (!apiKey) throw new ToolsearchError("bad_request", "no API key: set OPENAI_API_KEY (or pass --api-key)");
    const client = new OpenAI({
      baseURL,
      apiKey,
      maxRetries: positive("retries", args.retries),
      timeout: positive("timeout-ms", args["timeout-ms"]),
    });
    const concurrency = Math.max(1, positive("concurrency", args.concurrency));
    const started = Date.now();
    progress(`enrich: ${model} at ${baseURL ?? "api.openai.com"}, ${concurrency} at a time`);
    const s = await enrich(config, { client, model, concurrency, chinese: args.chinese, onTool });
    for (const k of s.unknown) progress(`warning: search text key "${k}" names no tool (kept)`);
    for (const f of s.failed) progress(`failed: ${f.key}: ${f.reason}`);
    out(
      `${s.written.length} written, ${s.kept} kept, ${s.failed.length} failed; ${s.tokens.total} tokens ` +
        `(${s.tokens.prompt} prompt, ${s.tokens.completion} completion) in ${s.requests} model call${s.requests === 1 ? "" : "s"} (HTTP retries not counted), ${fmtMs(Date.now() - started)}; ${s.path}`,
    );
    if (s.failed.length)
      throw new ToolsearchError(
        "upstream_error",
        `${s.failed.length} tool${s.failed.length === 1 ? "" : "s"} got no search text; rerun to retry`,
      );
  },
});
