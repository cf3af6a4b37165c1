// The regex tool search's patterns (worker/core/pattern.ts): Python's re.search semantics on
// the supported subset, a clear refusal for what is outside it, and patterns that make a
// backtracking engine explode answer like any other (the NFA runs every state at once).
import { describe, expect, it } from "vitest";
import { compilePattern, MAX_PATTERN, PatternError } from "../../worker/core/pattern.ts";
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

  it("arguments nested deeper than 128 levels are refused before the validator recurses", () => {
    const deep = JSON.parse(`${"[".repeat(10_000)}${"]".repeat(10_000)}`) as unknown;
    expect(checkArguments({ type: "object" }, { x: deep })).toEqual({ ok: false, errors: ["arguments nest deeper than 128 levels"] });
  });
});
