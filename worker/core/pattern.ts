// Python-style regular expressions for Anthropic's tool_search_tool_regex and for the `pattern` of
// a tool's JSON Schema (core/schema-patterns.ts), run safely, pure. A
// pattern (at most 200 characters) is parsed here and compiled to a Thompson NFA that is simulated
// over the text, every state at once (core/nfa.ts): the time is linear in the text for a given pattern, so no
// pattern can backtrack catastrophically (JavaScript's RegExp could: (a+)+$). The subset, as in
// Python's `re.search`: literals, `.`, classes `[...]` with ranges and negation, \d \w \s \D \W \S,
// \b \B, ^ $ \A \Z, groups `(...)`, `(?:...)` and `(?P<name>...)`, alternation, the quantifiers
// * + ? {n} {n,} {n,m} (lazy forms too: only whether it matches is asked), and a leading `(?i)`.
// Backreferences and lookaround cannot run in linear time: they are refused (invalid_pattern), as
// is a pattern whose counted repetitions compile to more than MAX_STATES states. The NFA runs in
// core/nfa.ts, within a Budget of state visits (R2-M4).

import { Budget, BudgetExceeded, simulate, type Node, type Test } from "./nfa.ts";

export { Budget, BudgetExceeded };
export const MAX_PATTERN = 200;
export const MAX_STATES = 2000;

export class PatternError extends Error {}

type Ast =
  | { k: "char"; test: Test }
  | { k: "assert"; a: "^" | "$" | "b" | "B" }
  | { k: "seq"; items: Ast[] }
  | { k: "alt"; options: Ast[] }
  | { k: "rep"; item: Ast; min: number; max: number };
const CLASSES: Record<string, Test> = {
  d: (c) => c >= "0" && c <= "9",
  w: (c) => /\w/.test(c),
  s: (c) => /\s/.test(c),
};
const ESCAPES: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v" };

function parse(src: string, ignoreCase: boolean): Ast {
  let i = 0;
  const fail = (why: string): never => {
    throw new PatternError(`${why} at position ${i}`);
  };
  const lit = (ch: string): Test => {
    if (!ignoreCase) return (c) => c === ch;
    const lower = ch.toLowerCase();
    return (c) => c === ch || c.toLowerCase() === lower;
  };
  const escape = (inClass: boolean): Test | Ast => {
    const e = src[i++];
    if (e === undefined) return fail("a pattern cannot end with \\");
    const cls = CLASSES[e.toLowerCase()];
    if (cls) return e === e.toLowerCase() ? cls : (c: string) => !cls(c);
    if (ESCAPES[e]) return lit(ESCAPES[e]!);
    if (!inClass && (e === "b" || e === "B")) return { k: "assert", a: e };
    if (!inClass && e === "A") return { k: "assert", a: "^" };
    if (!inClass && e === "Z") return { k: "assert", a: "$" };
    if (/[0-9]/.test(e)) return fail("backreferences are not supported");
    if (/[A-Za-z]/.test(e)) return fail(`unknown escape \\${e}`);
    return lit(e);
  };
  const klass = (): Test => {
    const negate = src[i] === "^" && ++i > 0;
    const tests: Test[] = [];
    let first = true;
    while (src[i] !== "]" || first) {
      first = false;
      if (i >= src.length) fail("unterminated character class");
      let lo = src[i++]!;
      if (lo === "\\") {
        const t = escape(true);
        if (typeof t !== "function") fail("bad escape in a class");
        tests.push(t as Test);
        continue;
      }
      if (src[i] === "-" && src[i + 1] !== "]" && i + 1 < src.length) {
        i++;
        let hi = src[i++]!;
        if (hi === "\\") ((hi = ESCAPES[src[i]!] ?? src[i]!), i++);
        if (hi < lo) fail(`bad character range ${lo}-${hi}`);
        const [a, b] = [lo, hi];
        const inRange = (x: string) => x >= a && x <= b;
        tests.push(ignoreCase ? (c) => inRange(c) || inRange(c.toLowerCase()) || inRange(c.toUpperCase()) : inRange);
      } else tests.push(lit(lo));
    }
    i++;
    return negate ? (c) => !tests.some((t) => t(c)) : (c) => tests.some((t) => t(c));
  };
  const atom = (): Ast => {
    const ch = src[i++]!;
    if (ch === "(") {
      if (src[i] === "?") {
        if (src.startsWith("?:", i)) i += 2;
        else if (src.startsWith("?P<", i)) {
          const end = src.indexOf(">", i);
          if (end < 0 || !/^[A-Za-z_]\w*$/.test(src.slice(i + 3, end))) fail("bad group name");
          i = end + 1;
        } else fail("lookaround, backreferences and inline flags inside a pattern are not supported");
      }
      const inner = alt();
      if (src[i++] !== ")") fail("missing )");
      return inner;
    }
    if (ch === "[") return { k: "char", test: klass() };
    if (ch === ".") return { k: "char", test: (c) => c !== "\n" };
    if (ch === "^" || ch === "$") return { k: "assert", a: ch };
    if (ch === "\\") {
      const e = escape(false);
      return typeof e === "function" ? { k: "char", test: e } : e;
    }
    if ("*+?{".includes(ch) && !(ch === "{" && !/^\d/.test(src.slice(i)))) return fail("nothing to repeat");
    if (ch === ")") return fail("unbalanced )");
    return { k: "char", test: lit(ch) };
  };
  const quantified = (item: Ast): Ast => {
    for (;;) {
      const q = src[i];
      let min: number, max: number;
      if (q === "*") [min, max] = [0, Infinity];
      else if (q === "+") [min, max] = [1, Infinity];
      else if (q === "?") [min, max] = [0, 1];
      else if (q === "{" && /^\{\d*(,\d*)?\}/.test(src.slice(i))) {
        const m = /^\{(\d*)(,?)(\d*)\}/.exec(src.slice(i))!;
        min = m[1] ? Number(m[1]) : 0;
        max = m[2] ? (m[3] ? Number(m[3]) : Infinity) : min;
        if (max < min) fail("min repeat greater than max repeat");
        i += m[0].length - 1;
      } else return item;
      i++;
      if (src[i] === "?" || src[i] === "+") i++; // lazy or possessive: the same set of matches
      if (item.k === "assert") fail("nothing to repeat");
      item = { k: "rep", item, min, max };
    }
  };
  const seq = (): Ast => {
    const items: Ast[] = [];
    while (i < src.length && src[i] !== "|" && src[i] !== ")") items.push(quantified(atom()));
    return { k: "seq", items };
  };
  const alt = (): Ast => {
    const options = [seq()];
    while (src[i] === "|") (i++, options.push(seq()));
    return options.length === 1 ? options[0]! : { k: "alt", options };
  };
  const ast = alt();
  if (i < src.length) fail("unbalanced )");
  return ast;
}

function compile(ast: Ast): Node[] {
  const nodes: Node[] = [{ t: "match" }];
  const add = (n: Node) => {
    if (nodes.length >= MAX_STATES) throw new PatternError(`the pattern needs more than ${MAX_STATES} states`);
    return nodes.push(n) - 1;
  };
  const emit = (a: Ast, next: number): number => {
    if (a.k === "char") return add({ t: "char", test: a.test, next });
    if (a.k === "assert") return add({ t: "assert", a: a.a, next });
    if (a.k === "seq") return a.items.reduceRight((n, item) => emit(item, n), next);
    if (a.k === "alt") return a.options.map((o) => emit(o, next)).reduce((x, y) => add({ t: "split", a: x, b: y }));
    let start = next;
    if (a.max === Infinity) {
      const loop = add({ t: "split", a: -1, b: next });
      (nodes[loop] as { a: number }).a = emit(a.item, loop);
      start = loop;
    } else for (let k = a.min; k < a.max; k++) start = add({ t: "split", a: emit(a.item, start), b: next });
    for (let k = 0; k < a.min; k++) start = emit(a.item, start);
    return start;
  };
  const start = emit(ast, 0);
  nodes.push({ t: "split", a: start, b: start }); // the entry, last
  return nodes;
}

export interface Pattern {
  /** whether the pattern matches anywhere in `text` (Python's re.search); the visits are drawn from `budget` */
  test(text: string, budget?: Budget): boolean;
  /**
   * The same search in steps: it pauses (yields) whenever the budget's slice is spent, so that an
   * async caller can let other work run between steps; its value is whether the pattern matched.
   */
  steps(text: string, budget: Budget): Generator<void, boolean>;
}

/** A compiled pattern; PatternError says why one is refused. */
export function compilePattern(source: string): Pattern {
  if (source.length > MAX_PATTERN) throw new PatternError(`the pattern is longer than ${MAX_PATTERN} characters`);
  const flags = /^\(\?([aiLmsux]+)\)/.exec(source);
  if (flags && /[^i]/.test(flags[1]!)) throw new PatternError(`only the (?i) flag is supported`);
  const nodes = compile(parse(flags ? source.slice(flags[0].length) : source, !!flags));
  return {
    test(text, budget) {
      const run = simulate(nodes, text, budget, false);
      for (;;) {
        const step = run.next();
        if (step.done) return step.value;
      }
    },
    steps: (text, budget) => simulate(nodes, text, budget, true),
  };
}
