// The raw text of a top-level JSON member (worker/core/json-member.ts), the tool-set cache's key:
// it must be the text JSON.parse took that member's value from, whatever the spacing, escapes,
// nesting, duplicate keys or strings that look like JSON; otherwise two different tool sets could
// share a key, or one set miss every time.
import { describe, expect, it } from "vitest";
import { nestsDeeperThan } from "../../worker/core/json-depth.ts";
import { memberText, scanJson } from "../../worker/core/json-member.ts";

const value = (text: string, key: string) => {
  const raw = memberText(text, key);
  return raw === undefined ? undefined : JSON.parse(raw);
};

/** A random JSON value of strings that quote, escape and bracket, numbers and nesting. */
function random(depth: number, rnd: () => number): unknown {
  const pick = Math.floor(rnd() * (depth > 3 ? 4 : 7));
  const strings = ['a"b', "c\\", '\\"', "]}", '{"tools":[1]}', "\u00e9\u{1F600}", ",", ""];
  if (pick === 0) return strings[Math.floor(rnd() * strings.length)];
  if (pick === 1) return Math.round(rnd() * 1e6) / 100;
  if (pick === 2) return rnd() < 0.5 ? null : rnd() < 0.5;
  if (pick === 3) return -7e-3;
  if (pick === 4) return Array.from({ length: Math.floor(rnd() * 4) }, () => random(depth + 1, rnd));
  return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, (_, i) => [i % 2 ? "tools" : `k${i}`, random(depth + 1, rnd)]));
}

describe("memberText: the raw text JSON.parse read a top-level member from", () => {
  it("gives the text of the member's value, the last of duplicate keys, a key spelled with escapes", () => {
    expect(memberText('{"a":1,"tools":[1,2],"tools":[3]}', "tools")).toBe("[3]");
    expect(memberText('{ "tools" : [ {"x":"a\\"]}"} ] , "b": {"tools":9}}', "tools")).toBe('[ {"x":"a\\"]}"} ]');
    expect(memberText('{"tool\\u0073":[5]}', "tools")).toBe("[5]");
    expect(memberText('{"s":"x\\\\","tools":true }', "tools")).toBe("true");
    expect(memberText('{"messages":[{"tools":[1]}]}', "tools")).toBeUndefined();
    expect(memberText("[1]", "tools")).toBeUndefined();
  });

  it("agrees with JSON.parse on 2,000 random objects in three spacings", () => {
    let seed = 38;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 2000; n++) {
      const o = { model: "m", ...(random(0, rnd) as object), tools: random(1, rnd), after: random(2, rnd) };
      for (const space of [undefined, 1, "\t"]) {
        const text = JSON.stringify(o, null, space);
        expect(value(text, "tools")).toEqual(JSON.parse(text).tools);
        expect(value(text, "after")).toEqual(JSON.parse(text).after);
      }
    }
  });

  it("measures the depth nestsDeeperThan measures on the parsed value, long strings with escapes included (issue 38)", () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const long = `${"x".repeat(40)}\\"${"]".repeat(20)}\\\\`;
    for (let n = 0; n < 1000; n++) {
      const o = { s: long, v: random(0, rnd), t: [long, { [long]: random(2, rnd) }] };
      const text = JSON.stringify(o);
      const { depth } = scanJson(text);
      expect(nestsDeeperThan(o, depth)).toBe(false);
      expect(nestsDeeperThan(o, depth - 1)).toBe(true);
      expect(value(text, "t")).toEqual(o.t);
    }
    expect(scanJson('"a"').depth).toBe(0);
    expect(scanJson("[[[]]]").depth).toBe(3);
    expect(memberText('["a",{"tools":1}]', "tools")).toBeUndefined();
  });
});
