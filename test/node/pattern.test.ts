// The regex tool search's patterns (worker/core/pattern.ts): Python's re.search semantics on
// the supported subset, a clear refusal for what is outside it, and patterns that make a
// backtracking engine explode answer like any other (the NFA runs every state at once).
import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded, compilePattern, MAX_PATTERN, MAX_STATES, PatternError } from "../../worker/core/pattern.ts";
import { checkArguments } from "../../worker/core/tool-args.ts";

describe("compilePattern", () => {
  const cases: Array<[string, string, boolean]> = [
    ["github", "mcp__github__create_issue", true],
    ["^mcp__github", "mcp__github__x", true],
    ["^github", "mcp__github__x", false],
    ["(?i)CREATE_ISSUE", "mcp__github__create_issue", true],
    ["CREATE_ISSUE", "mcp__github__create_issue", false],
    ["create_(issue|pr)$", "create_pr", true],
    ["create_(issue|pr)$", "create_prs", false],
    ["create_(?:issue|pr)\\Z", "create_issue", true],
    ["a{2,3}b", "caaab", true],
    ["a{2,3}b", "cab", false],
    ["a{2}", "ba", false],
    ["[a-c]+x", "zzbbx", true],
    ["[^a-z]x", "ax", false],
    ["[\\d_]+z", "a_1z", true],
    ["\\bread\\b", "read_graph", false],
    ["\\bread", "a read_graph", true],
    ["\\d+", "abc12", true],
    ["\\D\\S\\W", "1", false],
    ["(?P<verb>get|list)_\\w+", "list_files", true],
    ["colou?r", "color", true],
    ["colou+?r", "colour", true],
    ["a.c", "a\nc", false],
    ["x*", "", true],
  ];
  it.each(cases)("%s on %j: %s", (pattern, text, want) => {
    expect(compilePattern(pattern).test(text)).toBe(want);
  });

  const refused: Array<[string, string]> = [
    ["(a", "missing )"],
    ["a)", "unbalanced )"],
    ["*a", "nothing to repeat"],
    ["(a)\\1", "backreferences are not supported"],
    ["(?=a)", "lookaround"],
    ["(?<=a)b", "lookaround"],
    ["[a", "unterminated character class"],
    ["a{3,2}", "min repeat greater than max repeat"],
    ["\\q", "unknown escape"],
    ["(?m)a", "only the (?i) flag"],
    ["x".repeat(MAX_PATTERN + 1), `longer than ${MAX_PATTERN}`],
    ["(a{100}){100}", "states"],
  ];
  it.each(refused)("refuses %s: %s", (pattern, why) => {
    expect(() => compilePattern(pattern)).toThrow(PatternError);
    expect(() => compilePattern(pattern)).toThrow(why);
  });

  it("answers patterns that backtrack catastrophically in JavaScript's RegExp", () => {
    const text = "a".repeat(20_000) + "!";
    expect(compilePattern("(a+)+$").test(text)).toBe(false);
    expect(compilePattern("(a|aa)*b").test(text)).toBe(false);
    expect(compilePattern("(a|aa)*!").test(text)).toBe(true);
  });
});

// R2-M4: linear, but with up to 2,000 live states per character; a budget bounds the visits
describe("a budget of state visits", () => {
  it("the many-state pattern stops at the budget, within one character's work of it; a cheap one on the same text does not", () => {
    const text = "x".repeat(64 * 1024);
    const budget = new Budget(1_000_000);
    const started = performance.now();
    expect(() => compilePattern("(?i)[^~]{1990}~").test(text, budget)).toThrow(BudgetExceeded);
    expect(() => compilePattern("(?i)[^~]{1990}~").test(text, budget)).toThrow("more than 1000000 state visits");
    expect(budget.left).toBeGreaterThan(-2 * MAX_STATES);
    expect(performance.now() - started).toBeLessThan(1000);
    // the same 64k characters with a pattern of few states: about 2 visits a character
    const cheap = new Budget(1_000_000);
    expect(compilePattern("(?i)create_issue").test(text, cheap)).toBe(false);
    expect(cheap.total - cheap.left).toBeLessThan(4 * text.length);
  });

  it("steps pause each time the slice is spent, across texts, and give the same answer as test", () => {
    const pattern = compilePattern("[a-z]{20}!");
    const budget = new Budget(10_000_000, 10_000);
    let pauses = 0;
    for (const text of ["a".repeat(400), "b".repeat(400) + "!"]) {
      const run = pattern.steps(text, budget);
      let step = run.next();
      for (; !step.done; step = run.next()) pauses++;
      expect(step.value).toBe(pattern.test(text));
    }
    // about 22 live states a character over 800 characters: one pause per 10,000 visits
    expect(pauses).toBeGreaterThanOrEqual(Math.floor((budget.total - budget.left) / 10_000) - 1);
    expect(pauses).toBeGreaterThan(0);
  });
});

// M7: a schema's `pattern` on model-made arguments runs in the NFA above, never in JavaScript's
// RegExp, where ^(a+)+$ on 40 characters and a "!" backtracks for longer than the test's timeout
describe("a tool schema's pattern (core/schema-patterns.ts)", () => {
  const schema = { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } };

  it("a catastrophic pattern is decided by the NFA: a match passes, a non-match is refused naming the pattern", () => {
    expect(checkArguments(schema, { s: "aaaa" })).toEqual({ ok: true, args: { s: "aaaa" } });
    expect(checkArguments(schema, { s: `${"a".repeat(40)}!` })).toEqual({
      ok: false,
      errors: ["arguments/s: String does not match pattern ^(a+)+$."],
    });
  });

  it("a pattern with its own format, in a nested schema, is still checked; one the NFA refuses is never run", () => {
    const nested = {
      type: "object",
      properties: { l: { type: "array", items: { type: "string", format: "email", pattern: "^[a-z]+@x$" } } },
    };
    expect(checkArguments(nested, { l: ["ab@x"] }).ok).toBe(true);
    expect(checkArguments(nested, { l: ["ab@y"] }).ok).toBe(false);
    // a backreference cannot run in linear time: not checked (the tool checks its own input)
    const backref = { type: "object", properties: { s: { type: "string", pattern: "^(a+)\\1$" } } };
    expect(checkArguments(backref, { s: "b" }).ok).toBe(true);
  });

  it("a check costlier than its budget is refused, saying so; the calls of one request share the budget (R2-M4)", () => {
    const wide = { type: "object", properties: { s: { type: "string", pattern: "[^~]{1990}~" } } };
    const started = performance.now();
    const r = checkArguments(wide, { s: "x".repeat(1024 * 1024) });
    expect(r).toEqual({ ok: false, errors: [expect.stringMatching(/more than 16000000 state visits .*; send shorter strings$/)] });
    expect(performance.now() - started).toBeLessThan(3000);
    // an anchored pattern of a few states checks a 1 MiB value within the same budget
    const anchored = { type: "object", properties: { s: { type: "string", pattern: "^[a-z]+$" } } };
    expect(checkArguments(anchored, { s: "x".repeat(1024 * 1024) }).ok).toBe(true);
    // one budget for three calls (6 visits a character here): the third finds it spent
    const shared = new Budget(2_000_000);
    expect(checkArguments(anchored, { s: "x".repeat(150_000) }, shared).ok).toBe(true);
    expect(checkArguments(anchored, { s: "x".repeat(150_000) }, shared).ok).toBe(true);
    expect(checkArguments(anchored, { s: "x".repeat(50_000) }, shared).ok).toBe(false);
  });

  it("arguments nested deeper than 128 levels are refused before the validator recurses", () => {
    const deep = JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`) as unknown;
    expect(checkArguments({ type: "object" }, { x: deep })).toEqual({ ok: false, errors: ["arguments nest deeper than 128 levels"] });
  });
});
