// The model registry: exact families and versions, never substrings, for every family the issue
// names; provider prefixes and date suffixes stripped; deployment overrides win.
import { describe, expect, it } from "vitest";
import { lookupModel } from "../../worker/core/models.ts";
import { parseQuery } from "../../worker/core/search.ts";

describe("lookupModel", () => {
  it.each([
    ["gpt-4o", "gpt-4o", 128_000, true],
    ["gpt-4o-mini-2024-07-18", "gpt-4o-mini", 128_000, true],
    ["gpt-4.1", "gpt-4.1", 1_047_576, true],
    ["openai/gpt-4.1-nano", "gpt-4.1-nano", 1_047_576, false],
    ["gpt-5", "gpt-5", 400_000, true],
    ["gpt-5-mini", "gpt-5-mini", 400_000, true],
    ["gpt-5.1-codex", "gpt-5.1-codex", 400_000, true],
    ["o3", "o3", 200_000, true],
    ["o4-mini", "o4-mini", 200_000, true],
    ["claude-3-haiku-20240307", "claude-3-haiku", 200_000, false],
    ["claude-3-opus-20240229", "claude-3-opus", 200_000, true],
    ["claude-3-5-haiku-20241022", "claude-3.5-haiku", 200_000, true],
    ["anthropic/claude-3.5-sonnet", "claude-3.5-sonnet", 200_000, true],
    ["claude-3-7-sonnet-latest", "claude-3.7-sonnet", 200_000, true],
    ["claude-sonnet-4-20250514", "claude-sonnet-4", 200_000, true],
    ["claude-opus-4-1", "claude-opus-4.1", 200_000, true],
    ["claude-haiku-4-5", "claude-haiku-4.5", 200_000, true],
    ["gemini-2.0-flash", "gemini-2.0-flash", 1_048_576, true],
    ["gemini-2.0-flash-lite", "gemini-2.0-flash-lite", 1_048_576, false],
    ["google/gemini-2.5-pro", "gemini-2.5-pro", 1_048_576, true],
    ["gemini-3-pro-preview", "gemini-3-pro", 1_048_576, true],
    ["Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b", 131_072, true],
    ["qwen3-32b", "qwen3-32b", 131_072, true],
    ["qwen3-4b", "qwen3-4b", 131_072, false],
    ["deepseek-chat", "deepseek-chat", 128_000, true],
    ["deepseek-ai/DeepSeek-V3.1", "deepseek-v3.1", 128_000, true],
    ["deepseek-r1", "deepseek-r1", 64_000, false],
    ["deepseek-ai/DeepSeek-R1-0528", "deepseek-r1-0528", 128_000, true],
    ["glm-4.5", "glm-4.5", 128_000, true],
    ["zai-org/GLM-4.6", "glm-4.6", 200_000, true],
    ["glm-4.5v", "glm-4.5v", 64_000, false],
    ["glm-4v-plus", "glm-4v", 64_000, false],
    ["meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", 131_072, true],
    ["@cf/meta/llama-3.1-8b-instruct-fp8-fast", "llama-3.1-8b", 131_072, false],
    ["llama-3.2-11b-vision-instruct", "llama-3.2-11b-vision", 131_072, false],
    ["meta-llama/Meta-Llama-3-70B-Instruct", "llama-3.0-70b", 8_192, false],
  ])("%s -> %s", (id, family, contextWindow, toolSearch) => {
    expect(lookupModel(id)).toEqual({ family, contextWindow, toolSearch });
  });

  it("does not match by substring", () => {
    for (const id of ["haiku", "my-gpt-4o-clone", "claude-haiku", "gpt-4o-audio-preview-xyz", "llama"])
      expect(lookupModel(id), id).toBeNull();
  });

  it("deployment overrides win and can add models", () => {
    expect(lookupModel("gpt-4o", { "gpt-4o": { contextWindow: 64_000 } })).toEqual({
      family: "gpt-4o",
      contextWindow: 64_000,
      toolSearch: true,
    });
    expect(lookupModel("in-house-1", { "in-house-1": { contextWindow: 32_000, toolSearch: true } })).toEqual({
      family: "in-house-1",
      contextWindow: 32_000,
      toolSearch: true,
    });
  });
});

describe("parseQuery", () => {
  it.each([
    ["select:a, b ,a", undefined, { kind: "select", names: ["a", "b"] }],
    ["SELECT:x", undefined, { kind: "select", names: ["x"] }],
    [
      "create issue +github",
      undefined,
      { kind: "keywords", terms: ["create", "issue", "github"], required: ["github"], server: undefined, exact: "create issue +github" },
    ],
    ["mcp__github list", 3, { kind: "keywords", terms: ["list"], required: [], server: "github", exact: "mcp__github list" }],
    [
      "mcp__chrome-devtools__",
      undefined,
      { kind: "browse", server: "chrome-devtools", page: 1, pageSize: 20, exact: "mcp__chrome-devtools__" },
    ],
    ["mcp__github page:3", 5, { kind: "browse", server: "github", page: 3, pageSize: 5, exact: "mcp__github page:3" }],
    ["mcp__github page:0", undefined, { kind: "error", message: "Error: pages start at page:1." }],
    [
      "mcp__github page:2 issues",
      undefined,
      { kind: "keywords", terms: ["issue", "page", "2"], required: [], server: "github", exact: "mcp__github page:2 issues" },
    ],
    ["   ", undefined, { kind: "error", message: "Error: query is empty. Pass `select:<name>` or keywords." }],
    ["select:", undefined, { kind: "error", message: "Error: select: needs at least one tool name." }],
    ["!!! ???", undefined, { kind: "error", message: "Error: query has no searchable words." }],
    ["ok", 2.5, { kind: "error", message: "Error: limit must be an integer from 1 to 20." }],
  ])("%j (limit %j)", (q, limit, expected) => {
    expect(parseQuery(q, limit)).toEqual(expected);
  });
});
