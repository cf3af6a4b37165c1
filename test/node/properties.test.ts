// Property tests (fast-check). toolSearch's parser, ranker and full answer path never throw on
// arbitrary queries and limits and keep their documented result shapes over the pinned demo
// catalog; verifyCatalog rejects every single-byte change of a catalog file with a coded error;
// a posting's text form (tool-index.ts) gives back exactly the ids and counts it was made of.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCatalog } from "../../cli/lib/build.ts";
import { parseConfig } from "../../cli/lib/config.ts";
import { readCatalogFile } from "../../cli/lib/files.ts";
import { verifyCatalog } from "../../worker/core/catalog.ts";
import { ToolsearchError, type ErrorCode } from "../../worker/core/errors.ts";
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  MAX_QUERY,
  MAX_SELECT,
  parseQuery,
  runSearch,
  searchCatalog,
  type ParsedQuery,
  type SearchCatalog,
  type SearchOutcome,
} from "../../worker/core/search.ts";
import { answerToolSearch, type ActivationResult } from "../../worker/core/tool-search.ts";
import { decodePosting, encodePosting } from "../../worker/core/tool-index.ts";
import { ROOT } from "./helpers.ts";

let cat: SearchCatalog;
let names: string[];
let servers: string[];

beforeAll(async () => {
  // the catalog wrangler.toml pins (its top-level [vars] CATALOG), whatever it is named today
  const pinned = /^CATALOG\s*=\s*"([^"]+)"/m.exec(await readFile(join(ROOT, "wrangler.toml"), "utf8"))?.[1];
  if (!pinned) throw new Error("wrangler.toml has no CATALOG line");
  const { catalog, index } = await readCatalogFile(join(ROOT, "catalogs", pinned));
  cat = searchCatalog(catalog.tools, index);
  names = catalog.tools.map((t) => t.name);
  servers = [...new Set(names.map((n) => n.split("__")[1]!))];
});

// ---- arbitraries (names/servers are read lazily: the catalog loads in beforeAll) ----
const charIn = (min: number, max: number) => fc.integer({ min, max }).map((c) => String.fromCodePoint(c));
const control = fc.oneof(
  charIn(0, 0x1f),
  charIn(0x7f, 0x9f),
  fc.constantFrom("\u2028", "\u2029", "\u200b", "\ufeff", "\u00a0", "\ud800", "\udfff"),
);
const cjk = fc.string({ unit: charIn(0x4e00, 0x9fff), minLength: 1, maxLength: 4 });
const emoji = fc.constantFrom("🔍", "📁", "🐙", "👩‍💻", "🇯🇵", "✅", "🙂");
const tricky = fc.constantFrom(
  "constructor",
  "__proto__",
  "toString",
  "hasOwnProperty",
  "the",
  "a",
  "and",
  "-",
  "_",
  "__",
  ".",
  "*",
  "?",
  "\\",
  "$&",
  "[",
  "(",
  "0",
  "1e309",
  "NaN",
);
const toolName = fc.oneof(
  fc.constant(null).chain(() => fc.constantFrom(...names)),
  fc
    .constant(null)
    .chain(() => fc.constantFrom(...names))
    .map((n) => n.toUpperCase()),
  fc.string({ unit: "grapheme-ascii", maxLength: 70 }),
);
const word = fc.oneof(
  fc
    .constant(null)
    .chain(() => fc.constantFrom(...names))
    .map((n) => n.split("__").at(-1)!.split("_")[0]!),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 }),
  cjk,
  emoji,
  tricky,
);
const serverPrefix = fc
  .tuple(
    fc.oneof(
      fc.constant(null).chain(() => fc.constantFrom(...servers)),
      fc.string({ unit: "grapheme-ascii", maxLength: 12 }),
    ),
    fc.boolean(),
  )
  .map(([s, end]) => `mcp__${s}${end ? "__" : ""}`);
const sep = fc.constantFrom(" ", "  ", "\t", "\n", " \u3000 ", ",");
const selectQuery = fc
  .tuple(
    fc.constantFrom("select:", "SELECT:", " Select: ", "select:,"),
    fc.array(toolName, { maxLength: MAX_SELECT + 5 }),
    fc.constantFrom(",", ", ", ",,", " ,"),
  )
  .map(([head, list, comma]) => head + list.join(comma));
const keywordQuery = fc
  .array(
    fc.oneof(
      word,
      word.map((w) => `+${w}`),
      serverPrefix,
      fc.constantFrom("+", "++", "+ "),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .chain((ws) => fc.array(sep, { minLength: ws.length, maxLength: ws.length }).map((ss) => ws.map((w, i) => w + ss[i]).join("")));
const anyString = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.string({ unit: fc.oneof(control, charIn(0x20, 0x7e)), maxLength: 100 }),
  fc.string({ unit: fc.oneof(cjk, emoji, charIn(0x20, 0x7e)), maxLength: 60 }),
);
const query = fc.oneof({ weight: 3, arbitrary: anyString }, { weight: 3, arbitrary: selectQuery }, { weight: 4, arbitrary: keywordQuery });
const limit = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.integer({ min: -3, max: MAX_LIMIT + 3 }) },
  { weight: 1, arbitrary: fc.double() }, // NaN, ±Infinity, -0, fractions
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 1, arbitrary: fc.anything() },
);

// ---- the documented shapes ----
function checkParsed(q: unknown, parsed: ParsedQuery): void {
  expect(["error", "select", "browse", "keywords"]).toContain(parsed.kind);
  if (parsed.kind === "error") expect(parsed.message).toMatch(/^Error: \S/);
  if (parsed.kind === "select") {
    expect(parsed.names.length).toBeGreaterThan(0);
    expect(parsed.names.length).toBeLessThanOrEqual(MAX_SELECT);
    expect(new Set(parsed.names).size).toBe(parsed.names.length);
  }
  if (typeof q !== "string" || q.length > MAX_QUERY) expect(parsed.kind).toBe("error");
}

function checkOutcome(parsed: ParsedQuery, outcome: SearchOutcome, k: number): void {
  if (parsed.kind === "error") return void expect(outcome).toEqual(parsed);
  expect(outcome.kind).toBe(parsed.kind);
  if (outcome.kind === "select" && parsed.kind === "select") {
    for (const t of outcome.found) expect(cat.byName.get(t.name)).toBe(t);
    for (const u of outcome.unknown) for (const s of u.suggestions) expect(cat.byName.has(s)).toBe(true);
    // every name is found (exactly, or as a grouped short name) or reported unknown, once
    const unknown = outcome.unknown.map((u) => u.name);
    for (const n of unknown) expect(parsed.names).toContain(n);
    for (const n of parsed.names) if (cat.byName.has(n)) expect(outcome.found.map((t) => t.name)).toContain(n);
    expect(new Set(outcome.found).size).toBe(outcome.found.length);
    expect(outcome.found.length + unknown.length).toBeLessThanOrEqual(parsed.names.length);
  }
  if (outcome.kind === "browse" && parsed.kind === "browse") {
    expect(outcome.tools.length).toBeLessThanOrEqual(parsed.pageSize);
    for (const t of outcome.tools) expect(t.name.toLowerCase().startsWith(`mcp__${parsed.server.toLowerCase()}__`)).toBe(true);
    if ("unknownServer" in outcome) for (const s of outcome.closest) expect(servers).toContain(s);
  }
  if (outcome.kind === "keywords" && parsed.kind === "keywords") {
    const got = outcome.matches.map((m) => m.name);
    expect(got.length).toBeLessThanOrEqual(k);
    expect(new Set(got).size).toBe(got.length);
    for (const n of got) expect(cat.byName.has(n)).toBe(true);
    for (const m of outcome.matches) expect(Number.isFinite(m.score)).toBe(true);
    for (let i = 1; i < got.length; i++) expect(outcome.matches[i - 1]!.score).toBeGreaterThanOrEqual(outcome.matches[i]!.score);
    if (parsed.server !== undefined) {
      for (const n of got) expect(n.toLowerCase().startsWith(`mcp__${parsed.server.toLowerCase()}__`)).toBe(true);
      expect(outcome.serverTotal).toBeGreaterThanOrEqual(got.length);
    }
  }
}

describe("toolSearch never throws and keeps its result shapes", () => {
  it("parseQuery + runSearch over arbitrary queries and limits", () => {
    fc.assert(
      fc.property(query, limit, (q, l) => {
        const parsed = parseQuery(q, l);
        checkParsed(q, parsed);
        const k = parsed.kind === "error" ? DEFAULT_LIMIT : ((l as number | undefined) ?? DEFAULT_LIMIT);
        if (parsed.kind !== "error" && l !== undefined) expect(Number.isInteger(l) && k >= 1 && k <= MAX_LIMIT).toBe(true);
        checkOutcome(parsed, runSearch(cat, parsed, k), k);
      }),
      { numRuns: 1500 },
    );
  });

  it("runSearch honours every valid limit", () => {
    fc.assert(
      fc.property(keywordQuery, fc.integer({ min: 1, max: MAX_LIMIT }), (q, k) => {
        const parsed = parseQuery(q, k);
        checkOutcome(parsed, runSearch(cat, parsed, k), k);
      }),
      { numRuns: 300 },
    );
  });

  it("answerToolSearch (activation recorded by the caller) over arbitrary JSON queries", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 9, arbitrary: query }, { weight: 1, arbitrary: fc.jsonValue() }),
        limit,
        fc.constantFrom("inject", "proxy"),
        fc.constantFrom("deferred", "full"),
        fc.integer({ min: 0, max: 30 }),
        async (q, l, activation, mode, preloaded) => {
          const session = new Set(names.slice(0, preloaded));
          const calls: string[][] = [];
          const activate = async (picked: string[], text: string): Promise<ActivationResult> => {
            calls.push(picked);
            expect(text).toBe(q);
            const loaded = picked.filter((n) => !session.has(n));
            const alreadyLoaded = picked.filter((n) => session.has(n));
            for (const n of loaded) session.add(n);
            return { loaded, alreadyLoaded, activations: [...session] };
          };
          const answer = await answerToolSearch(
            cat,
            { mode: mode as "deferred" | "full", activation: activation as "inject" | "proxy" },
            q,
            l,
            activate,
          );
          expect(answer).not.toBeNull();
          expect(typeof answer!.result).toBe("string");
          const parsed = parseQuery(q, l);
          if (parsed.kind === "error") expect(answer!.result).toBe(parsed.message);
          if (parsed.kind === "error" || mode === "full") return void expect(calls).toEqual([]);
          expect(calls).toHaveLength(1);
          const picked = calls[0]!;
          expect(new Set(picked).size).toBe(picked.length);
          for (const n of picked) expect(cat.byName.has(n)).toBe(true);
          expect([...answer!.loaded, ...answer!.alreadyLoaded].sort()).toEqual([...picked].sort());
          for (const m of answer!.matches) expect(cat.byName.has(m.name)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("rejects queries over MAX_QUERY characters with a message, up to 1 MB; accepts exactly MAX_QUERY", () => {
    const long = fc
      .tuple(fc.string({ unit: "binary", minLength: 1, maxLength: 8 }), fc.integer({ min: MAX_QUERY + 1, max: 1 << 20 }))
      .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n));
    fc.assert(
      fc.property(long, limit, (q, l) => {
        const parsed = parseQuery(q, l);
        expect(parsed.kind).toBe("error");
        if (q.trim()) expect((parsed as { message: string }).message).toContain(`the limit is ${MAX_QUERY}`);
        const answer = runSearch(cat, parsed, DEFAULT_LIMIT);
        expect(answer).toEqual(parsed);
      }),
      { numRuns: 40 },
    );
    // the cut is at exactly MAX_QUERY: padding is trimmed only after the length check
    fc.assert(
      fc.property(
        fc.constant(null).chain(() => fc.constantFrom(...names)),
        fc.integer({ min: -10, max: 10 }),
        fc.constantFrom(" ", "\t", "\n"),
        (name, delta, pad) => {
          const head = `select:${name}`;
          const q = head + pad.repeat(MAX_QUERY + delta - head.length);
          const parsed = parseQuery(q, undefined);
          if (q.length > MAX_QUERY)
            expect(parsed).toEqual({ kind: "error", message: `Error: query is ${q.length} characters; the limit is ${MAX_QUERY}.` });
          else expect(parsed).toEqual({ kind: "select", names: [name] });
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("verifyCatalog rejects any single-byte change", () => {
  let bytes: Uint8Array;
  const CODES: ErrorCode[] = ["catalog_invalid"];

  beforeAll(async () => {
    const config = parseConfig(
      { name: "shop", version: "1.0.0", mcpServers: { shop: { tools: join(ROOT, "test/fixtures/shop-tools.json") } } },
      ROOT,
    );
    bytes = new TextEncoder().encode((await buildCatalog(config)).text);
    await verifyCatalog(bytes, { strict: true }); // the unmutated file passes
  });

  it("in the Worker's (bytes) and the CLI's (strict) mode, with a coded error", async () => {
    const head = 400; // format, build config and the hash member: checked by position, not by hash
    const position = fc.oneof(
      fc.integer({ min: 0, max: bytes.length - 1 }),
      fc.integer({ min: 0, max: head - 1 }),
      fc.integer({ min: bytes.length - 8, max: bytes.length - 1 }),
    );
    await fc.assert(
      fc.asyncProperty(position, fc.integer({ min: 1, max: 255 }), fc.boolean(), async (at, delta, strict) => {
        const mutated = bytes.slice();
        mutated[at] = (bytes[at]! + delta) % 256;
        let error: unknown;
        try {
          await verifyCatalog(strict ? new TextDecoder().decode(mutated) : mutated, { strict });
        } catch (e) {
          error = e;
        }
        if (!(error instanceof ToolsearchError))
          throw new Error(
            `byte ${at} 0x${bytes[at]!.toString(16)} -> 0x${mutated[at]!.toString(16)} (strict ${strict}): ${error ? `uncoded ${String(error)}` : "accepted"}`,
          );
        expect(CODES).toContain(error.code);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("a posting as text", () => {
  it("decodes to the ids and counts it was encoded from", () => {
    expect(encodePosting([3, 1, 40, 2])).toBe("3,11:2");
    expect(decodePosting("3,11:2")).toEqual([3, 1, 40, 2]);
    const posting = fc
      .uniqueArray(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 300 })
      .chain((ids) =>
        fc.tuple(
          fc.constant(ids.sort((a, b) => a - b)),
          fc.array(fc.integer({ min: 1, max: 5_000 }), { minLength: ids.length, maxLength: ids.length }),
        ),
      )
      .map(([ids, counts]) => ids.flatMap((id, i) => [id, counts[i]!]));
    fc.assert(
      fc.property(posting, (pairs) => {
        expect(decodePosting(encodePosting(pairs))).toEqual(pairs);
      }),
      { numRuns: 500 },
    );
  });
});
