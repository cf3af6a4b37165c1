// The Thompson NFA that core/pattern.ts compiles a pattern to, and its simulation over a text,
// pure: every state at once, so the time is linear in the text. Linear is not cheap: up to
// MAX_STATES (2,000) live states per character (issue 39 R2-M4). So a run draws its state visits
// from a Budget that the tests of one request share; past it the run throws BudgetExceeded, checked
// once per character (at most one character's work over). Run in steps, it pauses (yields) each
// time the budget's slice is spent, so that an async caller lets other work run in between.

export type Test = (c: string) => boolean;
export type Node =
  | { t: "char"; test: Test; next: number }
  | { t: "split"; a: number; b: number }
  | { t: "assert"; a: string; next: number }
  | { t: "match" };

const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);

/**
 * State visits (states x characters) a request's pattern tests may still make; with a `slice`,
 * a search run in steps pauses each time that many more visits were made, over all its texts.
 */
export class Budget {
  left: number;
  untilPause: number;
  readonly total: number;
  readonly slice: number;
  constructor(total: number, slice = Infinity) {
    this.total = this.left = total;
    this.slice = this.untilPause = slice;
  }
}

/** A test ran out of its Budget: the text was not (fully) searched. */
export class BudgetExceeded extends Error {
  constructor(budget: Budget) {
    super(`the pattern search needs more than ${budget.total} state visits (states x characters searched)`);
  }
}

/** The NFA simulated over `text`, every state at once; `paused`: yield when the budget's slice is spent. */
export function* simulate(nodes: Node[], text: string, budget: Budget | undefined, paused: boolean): Generator<void, boolean> {
  const entry = nodes.length - 1;
  let current: number[] = [];
  const seen = new Int32Array(nodes.length).fill(-1);
  let stamp = 0;
  let visits = 0;
  const close = (into: number[], n: number, pos: number): boolean => {
    if (seen[n] === stamp) return false;
    seen[n] = stamp;
    visits++;
    const node = nodes[n]!;
    if (node.t === "match") return true;
    if (node.t === "split") return close(into, node.a, pos) || close(into, node.b, pos);
    if (node.t === "assert") {
      const before = text[pos - 1];
      const ok =
        node.a === "^" ? pos === 0 : node.a === "$" ? pos === text.length : (node.a === "b") === (isWord(before) !== isWord(text[pos]));
      return ok && close(into, node.next, pos);
    }
    into.push(n);
    return false;
  };
  stamp++;
  if (close(current, entry, 0)) return true;
  for (let pos = 0; pos < text.length; pos++) {
    stamp++;
    const next: number[] = [];
    const c = text[pos]!;
    for (const n of current) {
      const node = nodes[n] as { test: Test; next: number };
      if (node.test(c) && close(next, node.next, pos + 1)) return true;
    }
    // unanchored: a match may begin at every position
    if (close(next, entry, pos + 1)) return true;
    // the work of this character: the states tested, and those its closures visited
    const work = current.length + visits;
    visits = 0;
    current = next;
    if (!budget) continue;
    if ((budget.left -= work) < 0) throw new BudgetExceeded(budget);
    if (paused && (budget.untilPause -= work) <= 0) {
      budget.untilPause = budget.slice;
      yield;
    }
  }
  return false;
}
