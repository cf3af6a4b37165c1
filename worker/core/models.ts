// Model capability registry: context window and whether the model is known to use a search tool
// well. Ids are matched by family and version parsed from the id, never by substring: "haiku"
// alone would lump Claude 3 Haiku (weak at multi-step tool use) with 3.5 and 4.5 Haiku.
// Provider prefixes (`openai/`, `@cf/meta/`), `-instruct`/quantisation suffixes and dates are
// stripped first, so `anthropic/claude-3-5-haiku-20241022` and `claude-3-5-haiku` are one model.

export interface ModelInfo {
  /** canonical family id, e.g. `claude-3.5-haiku`, `gpt-4.1-mini`, `qwen3-32b` */
  family: string;
  contextWindow: number;
  toolSearch: boolean;
}

type Rule = [RegExp, (m: RegExpMatchArray) => ModelInfo | null];

const info = (family: string, contextWindow: number, toolSearch: boolean): ModelInfo => ({ family, contextWindow, toolSearch });

/** Parameter count in billions from `8b`, `0.6b`, `a22b`-style ids. */
const billions = (s: string | undefined) => (s ? Number(s) : NaN);

const RULES: Rule[] = [
  // OpenAI
  [/^gpt-4o(-mini)?$/, (m) => info(`gpt-4o${m[1] ?? ""}`, 128_000, true)],
  [/^gpt-4\.1(-mini|-nano)?$/, (m) => info(`gpt-4.1${m[1] ?? ""}`, 1_047_576, m[1] !== "-nano")],
  [
    /^gpt-5(?:\.(\d+))?(-mini|-nano|-pro|-codex(?:-mini)?|-chat(?:-latest)?)?$/,
    (m) => info(`gpt-5${m[1] ? `.${m[1]}` : ""}${m[2] ?? ""}`, m[2]?.startsWith("-chat") ? 128_000 : 400_000, true),
  ],
  [/^o3(-mini|-pro)?$/, (m) => info(`o3${m[1] ?? ""}`, 200_000, true)],
  [/^o4-mini$/, () => info("o4-mini", 200_000, true)],
  // Anthropic: claude-3-haiku, claude-3-5-sonnet, claude-3-7-sonnet, claude-sonnet-4, claude-opus-4-1, claude-haiku-4-5 ...
  [/^claude-3-(opus|sonnet|haiku)$/, (m) => info(`claude-3-${m[1]}`, 200_000, m[1] === "opus")],
  [/^claude-3-5-(sonnet|haiku)$/, (m) => info(`claude-3.5-${m[1]}`, 200_000, true)],
  [/^claude-3-7-sonnet$/, () => info("claude-3.7-sonnet", 200_000, true)],
  [/^claude-(opus|sonnet|haiku)-(4)(?:-(\d))?$/, (m) => info(`claude-${m[1]}-${m[2]}${m[3] ? `.${m[3]}` : ""}`, 200_000, true)],
  // Google
  [/^gemini-2\.0-flash(-lite)?$/, (m) => info(`gemini-2.0-flash${m[1] ?? ""}`, 1_048_576, !m[1])],
  [/^gemini-2\.5-(pro|flash|flash-lite)$/, (m) => info(`gemini-2.5-${m[1]}`, 1_048_576, true)],
  [/^gemini-3(?:\.(\d))?-(pro|flash|flash-lite)$/, (m) => info(`gemini-3${m[1] ? `.${m[1]}` : ""}-${m[2]}`, 1_048_576, true)],
  // Qwen3: dense sizes and MoE (`qwen3-235b-a22b`), coder and max
  [/^qwen3-(coder|max)(?:-plus|-flash)?$/, (m) => info(`qwen3-${m[1]}`, 262_144, true)],
  [
    /^qwen3-(\d+(?:\.\d+)?)b(?:-a(\d+(?:\.\d+)?)b)?$/,
    (m) => info(`qwen3-${m[1]}b${m[2] ? `-a${m[2]}b` : ""}`, 131_072, billions(m[1]) >= 14),
  ],
  // DeepSeek: V3.x and deepseek-chat/-reasoner (V3.x) call tools; the original R1 has no tool calling
  [
    /^deepseek-(chat|reasoner|v3(?:\.(\d))?)$/,
    (m) => info(m[1]!.startsWith("v3") ? `deepseek-${m[1]}` : `deepseek-${m[1]}`, 128_000, true),
  ],
  [/^deepseek-r1(-0528)?$/, (m) => info(`deepseek-r1${m[1] ?? ""}`, m[1] ? 128_000 : 64_000, !!m[1])],
  // Zhipu GLM: 4.5/4.6 (and -air) are agentic tool users; the vision models are not
  [/^glm-4\.(5|6)(-air|-flash)?$/, (m) => info(`glm-4.${m[1]}${m[2] ?? ""}`, m[1] === "6" ? 200_000 : 128_000, true)],
  [/^glm-4(?:\.(5|1))?v(?:-plus|-flash)?$/, (m) => info(`glm-4${m[1] ? `.${m[1]}` : ""}v`, 64_000, false)],
  // Meta Llama 3.x: small and vision models are unreliable with search-then-call
  [
    /^(?:meta-)?llama-?3(?:\.(\d))?-(\d+)b(-vision)?$/,
    (m) => {
      const minor = m[1] ?? "0";
      const ctx = minor === "0" ? 8_192 : 131_072;
      return info(`llama-3.${minor}-${m[2]}b${m[3] ?? ""}`, ctx, !m[3] && minor !== "0" && billions(m[2]) >= 70);
    },
  ],
];

/** Lowercase, drop provider prefixes and deployment suffixes (dates, -instruct, -fp8, -latest). */
export function normalizeModelId(id: string): string {
  let s = id.trim().toLowerCase();
  s = s.slice(s.lastIndexOf("/") + 1).replace(/:.*$/, "");
  let prev;
  do {
    prev = s;
    s = s
      // dates: 20241022, 2024-10-22, and yymm releases like -2507 (not R1's -0528 model name)
      .replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|2[3-9](?:0[1-9]|1[0-2]))$/, "")
      .replace(/-(instruct|it|chat-hf|hf|fp8|fp16|bf16|int4|int8|awq|gguf|fast|latest|preview|thinking|exp|turbo)$/, "")
      .replace(/-v\d+(\.\d+)?$/, (v) => (/^-v3/.test(v) ? v : ""));
  } while (s !== prev);
  return s.replace(/^claude-(\d)\.(\d)-/, "claude-$1-$2-").replace(/^deepseek-v3-(\d)/, "deepseek-v3.$1");
}

export type ModelOverrides = Record<string, Partial<ModelInfo>>;

/** Look a model up; `overrides` (from deployment config) win, keyed by raw or normalized id. */
export function lookupModel(id: string, overrides: ModelOverrides = {}): ModelInfo | null {
  const norm = normalizeModelId(id);
  let found: ModelInfo | null = null;
  for (const [re, make] of RULES) {
    const m = norm.match(re);
    if (m) {
      found = make(m);
      break;
    }
  }
  const o = overrides[id] ?? overrides[norm];
  if (!o) return found;
  return {
    family: o.family ?? found?.family ?? norm,
    contextWindow: o.contextWindow ?? found?.contextWindow ?? 0,
    toolSearch: o.toolSearch ?? found?.toolSearch ?? false,
  };
}
