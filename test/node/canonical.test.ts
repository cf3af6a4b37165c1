// canonicalJson (worker/core/canonical.ts) against its definition, the recursive serializer it
// had before the walk over JSON.stringify: the same bytes, or the same error, for awkward inputs
// (index keys, unicode keys, escapes, __proto__, nested arrays, empty objects, every key order),
// for arbitrary parsed JSON (fast-check), for values that are not plain data, and for the pinned
// catalog's tools; canonicalArray against the encoded join it stands for.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalArray, canonicalJson } from "../../worker/core/canonical.ts";
import { ROOT } from "./helpers.ts";

function reference(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} is not valid JSON`);
    if (value === undefined || typeof value === "function" || typeof value === "symbol")
      throw new TypeError(`canonicalJson: ${typeof value} is not valid JSON`);
    if (typeof value === "bigint") throw new TypeError("canonicalJson: bigint is not valid JSON");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : reference(v))).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) if (obj[key] !== undefined) parts.push(`${JSON.stringify(key)}:${reference(obj[key])}`);
  return `{${parts.join(",")}}`;
}

const outcome = (f: () => string) => {
  try {
    return f();
  } catch (e) {
    return `throws ${(e as Error).message}`;
  }
};
const same = (v: unknown) => expect(outcome(() => canonicalJson(v))).toBe(outcome(() => reference(v)));

const AWKWARD = [
  '{"b":1,"a":2}',
  '{"10":1,"9":2,"a":3}',
  '{"b":{"10":1,"9":2}}',
  '{"$ref":"#","0":1}',
  '{"-1":1,"1":2,"01":3,"4294967295":4,"4294967294":5}',
  '{"a":1,"__proto__":{"z":1,"y":2}}',
  '{"__proto__":[1,{"b":1,"a":1}]}',
  '{"é":1,"e":2,"😀":3,"\uffff":4,"\\u0000":5,"":6,"Z":7,"a":8}',
  '{"q\\"uote":"\\\\","nl\\n":"\\u2028\\ud83d\\ude00","\\u0073":"\\ud800"}',
  '[[[]],[{}],[[{"b":[{"d":1,"c":2}],"a":null}]],{},[],[1,"x",true,false,null,-0,1e-7,1e21]]',
  '{"z":{},"y":[],"x":{"a":{}},"w":[[],{}]}',
  '{"constructor":1,"toString":2,"hasOwnProperty":{"b":1,"a":2},"toJSON":"x","valueOf":null}',
  '{"type":"function","function":{"name":"n","description":"d","parameters":{"type":"object","properties":{"b":{"type":"string","description":"x"},"a":{"enum":["z","a"]}},"required":["b"]}}}',
];

describe("canonicalJson", () => {
  it.each(AWKWARD)("writes %s as its definition does", (text) => {
    same(JSON.parse(text));
  });

  it("writes arbitrary parsed JSON as its definition does, whatever the key order", () => {
    const key = fc.oneof(
      fc.constantFrom(
        "0",
        "1",
        "9",
        "10",
        "01",
        "-1",
        "4294967294",
        "4294967295",
        "__proto__",
        "toJSON",
        "",
        "$",
        "é",
        "😀",
        "a",
        "b",
        "B",
      ),
      fc.string({ maxLength: 4 }),
      fc.nat().map(String),
    );
    const { value } = fc.letrec<{ value: string }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.jsonValue({ depthSize: 0 }).map((v) => JSON.stringify(v)),
        fc.array(tie("value"), { maxLength: 4 }).map((vs) => `[${vs.join(",")}]`),
        fc
          .array(fc.tuple(key, tie("value")), { maxLength: 6 })
          .map((es) => `{${es.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`),
      ),
    }));
    fc.assert(
      fc.property(value, (text) => void same(JSON.parse(text))),
      { numRuns: 2000 },
    );
  });

  it("answers or throws as its definition does for values that are not plain data", () => {
    class Point {
      x = 1;
    }
    const sparse = [1, , 3];
    const withGetter = {
      b: 1,
      get a() {
        return { d: 1, c: 2 };
      },
    };
    for (const v of [
      { a: Number.NaN },
      [Number.POSITIVE_INFINITY],
      { a: () => 1, b: 1 },
      { a: Symbol("s") },
      { a: 1n },
      { b: 1, a: undefined, c: [undefined, null] },
      sparse,
      { a: sparse },
      { d: new Date(0) },
      new Date(0),
      { m: new Map([[1, 2]]) },
      new Point(),
      Object.assign(Object.create(null), { b: 1, a: 2 }),
      { s: new String("x"), n: new Number(1) },
      { t: { toJSON: () => "x" } },
      new Uint8Array([1, 2]),
      withGetter,
      "x",
      1,
      undefined,
    ])
      same(v);
  });

  it("sees inherited members as its definition does (Object.prototype touched)", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = { z: 1, y: 2 };
    try {
      same({ b: 1, a: { d: 1, c: 2 } });
      same({ a: { d: 1, c: 2 } });
    } finally {
      delete proto.polluted;
    }
    Object.defineProperty(proto, "toJSON", { value: () => "x", configurable: true });
    try {
      same({ b: 1, a: { d: 1, c: 2 } });
    } finally {
      delete proto.toJSON;
    }
  });

  it("writes the pinned catalog's tools as its definition does", async () => {
    const toml = await readFile(join(ROOT, "wrangler.toml"), "utf8");
    const file = /^CATALOG = "(.*)"$/m.exec(toml)![1]!;
    const { tools } = JSON.parse(await readFile(join(ROOT, "catalogs", file), "utf8")) as { tools: unknown[] };
    expect(tools.length).toBeGreaterThan(100);
    for (const t of tools) expect(canonicalJson(t)).toBe(reference(t));
  });
});

describe("canonicalArray", () => {
  it.each([
    [[]],
    [[{}]],
    [[{ b: 1, a: [] }, [{ d: 1, c: 2 }], { x: "x" }]],
    [[{ e: "é" }, { s: "😀😀😀" }, { k: "漢字" }, { n: 1 }]],
    [[{ e: "é".repeat(500) }, { s: "😀".repeat(300) }, { a: "ascii" }, { k: "漢".repeat(700) }]],
  ])("is the UTF-8 of canonicalJson of the array, with each element's length %#", (values) => {
    const { bytes, lengths } = canonicalArray(values);
    expect(bytes).toEqual(new TextEncoder().encode(`[${values.map(reference).join(",")}]`));
    expect(lengths).toEqual(values.map((v) => reference(v).length));
  });
});
