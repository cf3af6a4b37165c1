// The chat, Responses and Messages bodies' tools are checked in one pass when zod would answer them
// unchanged (worker/wire/check.ts unlessUnchanged, chat.ts, responses.ts, messages.ts): the result and every
// refusal must be exactly zod's, values and key order (the tools' JSON reaches the tool-set hash,
// the Responses echo and the upstream byte for byte).
import { describe, expect, it } from "vitest";
import { parseChatBody, parseToolListWithZod } from "../../worker/wire/chat.ts";
import { parseResponsesBody, parseToolListWithZod as responsesToolsWithZod } from "../../worker/wire/responses.ts";
import { parseMessagesBody, parseToolListWithZod as messagesToolsWithZod } from "../../worker/wire/messages.ts";

const outcome = (f: () => unknown) => {
  try {
    return { ok: JSON.stringify(f()) };
  } catch (e) {
    return { error: (e as Error).message };
  }
};
const viaBody = (tools: unknown) => outcome(() => parseChatBody({ model: "m", messages: [{ role: "user", content: "hi" }], tools }).tools);
/** zod alone on the list: its refusal names the field from the list, so the body's path is put in front */
const viaZod = (tools: unknown) => {
  const r = outcome(() => parseToolListWithZod(tools));
  return r.error === undefined ? r : { error: r.error.startsWith("body: ") ? `tools: ${r.error.slice(6)}` : `tools.${r.error}` };
};
const fn = (f: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "function", function: f, ...extra });

describe("chat tools: the one-pass check answers what zod answers", () => {
  it("the same tools, the same refusals, for the cases the check turns down and the ones it takes", () => {
    const p = { type: "object", properties: { q: { type: "string" } } };
    const cases: unknown[] = [
      [fn({ name: "a", description: "d", parameters: p }), fn({ name: "b" })],
      [fn({ name: "a", parameters: p, strict: true, description: "later key" })],
      [fn({ parameters: p, name: "order" })],
      [{ function: { name: "x" }, type: "function" }],
      [fn({ name: "a" }, { strict: true })],
      [fn({ name: "a" }, { defer_loading: true }), fn({ name: "b", defer_loading: false })],
      [fn({ name: "a" }), fn({ name: "a" })],
      [fn({ name: "toolSearch" })],
      [fn({ name: "bad name" })],
      [fn({ name: "a", description: 5 })],
      [fn({ name: "a", parameters: [] })],
      [fn({ name: "a", parameters: null })],
      [fn({ name: "a", defer_loading: "yes" })],
      [fn({ name: "a" }, { defer_loading: 1 })],
      [JSON.parse('{"type":"function","function":{"name":"a","__proto__":{"x":1}}}')],
      [JSON.parse('{"type":"function","function":{"name":"a","parameters":{"__proto__":{"x":1},"type":"object"}}}')],
      [{ type: "tool_search" }, fn({ name: "a" })],
      [{ type: "web_search" }],
      [null],
      "tools",
      Array.from({ length: 2001 }, (_, i) => fn({ name: `t${i}` })),
    ];
    for (const tools of cases) expect(viaBody(tools), JSON.stringify(tools).slice(0, 200)).toEqual(viaZod(tools));
    // the check took the first case (its own array, not zod's copy); a key after an unknown one is zod's to reorder
    const tools = (i: number) => parseChatBody({ model: "m", messages: [{ role: "user", content: "hi" }], tools: cases[i] }).tools;
    expect(tools(0)).toBe(cases[0]);
    expect(tools(1)).not.toBe(cases[1]);
    expect(Object.keys((tools(1) as Array<{ function: object }>)[0]!.function)).toEqual(["name", "description", "parameters", "strict"]);
  });

  it("a refusal names the field as zod did, before and after the tools", () => {
    const bad = { model: "", messages: [{ role: "user", content: "hi" }], tools: [fn({ name: "bad name" })] };
    expect(outcome(() => parseChatBody(bad))).toEqual({ error: "model: String must contain at least 1 character(s)" });
    expect(outcome(() => parseChatBody({ ...bad, model: "m" }))).toEqual({
      error: "tools.0.function.name: must be 1-64 letters, digits, _ or -",
    });
    expect(outcome(() => parseChatBody({ ...bad, model: "m", tools: [fn({ name: "a" })], n: 2 }))).toEqual({
      error: "n: only n = 1 is supported",
    });
  });
});

describe("Responses tools: the one-pass check answers what zod answers", () => {
  const viaResponses = (tools: unknown) => outcome(() => parseResponsesBody({ model: "m", input: "hi", tools }).tools);
  const viaResponsesZod = (tools: unknown) => {
    const r = outcome(() => responsesToolsWithZod(tools));
    return r.error === undefined ? r : { error: r.error.startsWith("body: ") ? `tools: ${r.error.slice(6)}` : `tools.${r.error}` };
  };
  const rf = (f: Record<string, unknown>) => ({ type: "function", ...f });

  it("the same tools, the same refusals", () => {
    const p = { type: "object", properties: { q: { type: "string" } } };
    const cases: unknown[] = [
      [
        rf({ name: "a", description: "d", parameters: p, strict: true }),
        rf({ name: "b", description: null, parameters: null, strict: null }),
      ],
      [rf({ name: "a", defer_loading: true, extra: { x: 1 } })],
      [rf({ name: "a", extra: 1, description: "after an unknown key" })],
      [{ name: "a", type: "function" }],
      [rf({ name: "a" }), rf({ name: "a" })],
      [rf({ name: "toolSearch" })],
      [rf({ name: "bad name" })],
      [rf({ name: 5 })],
      [rf({ name: "a", strict: "yes" })],
      [rf({ name: "a", parameters: [] })],
      [rf({ name: "a", defer_loading: null })],
      [JSON.parse('{"type":"function","name":"a","__proto__":{"x":1}}')],
      [{ type: "namespace", name: "ns", tools: [rf({ name: "a" })] }],
      [{ type: "tool_search" }, rf({ name: "a" })],
      [{ type: "web_search" }, rf({ name: "a" })],
      [null],
      Array.from({ length: 2001 }, (_, i) => rf({ name: `t${i}` })),
    ];
    for (const tools of cases) expect(viaResponses(tools), JSON.stringify(tools).slice(0, 200)).toEqual(viaResponsesZod(tools));
    const first = cases[0];
    expect(parseResponsesBody({ model: "m", input: "hi", tools: first }).tools).toBe(first);
  });
});

describe("Messages tools: the one-pass check answers what zod answers", () => {
  const body = (tools: unknown) => ({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }], tools });
  const viaMessages = (tools: unknown) => outcome(() => parseMessagesBody(body(tools)).tools);
  const viaMessagesZod = (tools: unknown) => {
    const r = outcome(() => messagesToolsWithZod(tools));
    return r.error === undefined ? r : { error: r.error.startsWith("body: ") ? `tools: ${r.error.slice(6)}` : `tools.${r.error}` };
  };
  const schema = { type: "object", properties: { q: { type: "string" } } };

  it("the same tools, the same refusals", () => {
    const cases: unknown[] = [
      [
        { name: "a", description: "d", input_schema: schema },
        { type: "custom", name: "b", input_schema: { type: "object" }, defer_loading: true },
      ],
      [{ name: "a", input_schema: schema, cache_control: { type: "ephemeral" } }],
      [{ name: "a", input_schema: { properties: {}, type: "object" } }],
      [{ input_schema: schema, name: "order" }],
      [{ name: "a", input_schema: { type: "string" } }],
      [{ name: "a" }],
      [
        { name: "a", input_schema: schema },
        { name: "a", input_schema: schema },
      ],
      [{ name: "toolSearch", input_schema: schema }],
      [{ name: "bad name", input_schema: schema }],
      [{ name: "a", description: 1, input_schema: schema }],
      [JSON.parse('{"name":"a","input_schema":{"type":"object","__proto__":{"x":1}}}')],
      [{ type: "tool_search_tool_bm25_20251119", name: "tool_search" }],
      [{ type: "web_search_20250305", name: "web_search" }],
      [null],
      Array.from({ length: 2001 }, (_, i) => ({ name: `t${i}`, input_schema: schema })),
    ];
    for (const tools of cases) expect(viaMessages(tools), JSON.stringify(tools).slice(0, 200)).toEqual(viaMessagesZod(tools));
    // the check took the first case: the client's own tool objects, not zod's copies
    const first = cases[0] as unknown[];
    expect(parseMessagesBody(body(first)).tools![0]).toBe(first[0]);
  });
});
