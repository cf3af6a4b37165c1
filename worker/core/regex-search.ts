// The regex tool search's loop, pure: the first REGEX_LIMIT tools whose name and description a
// pattern matches, in order. Its state visits come from the request's Budget (REGEX_SEARCH_BUDGET,
// issue 39 R2-M4: past it BudgetExceeded ends the search), and it pauses every REGEX_SLICE visits
// through `pause` (the caller's: a timer in the Worker), so that a long search lets other requests
// run. messages/search.ts answers the tool with it; test/bench/regex.ts measures it.

import type { CatalogTool } from "./catalog.ts";
import type { Budget, Pattern } from "./pattern.ts";

export const REGEX_LIMIT = 5;
/**
 * State visits (live states x characters searched) all regex searches of one request may make:
 * 1 to 2 s of CPU, in slices. Searches a model writes over the demo catalog, LiveMCPBench's tools
 * and 3,195 tools of 548k characters take at most 11% of it (test/bench/RESULTS.md section 12).
 */
export const REGEX_SEARCH_BUDGET = 32_000_000;
/** visits between pauses: about 10 ms of CPU */
export const REGEX_SLICE = 400_000;

/** The first REGEX_LIMIT of `tools` the pattern matches, their visits drawn from `budget`, pausing between slices. */
export async function matching<T extends Pick<CatalogTool, "name" | "description">>(
  pattern: Pattern,
  tools: Iterable<T>,
  budget: Budget,
  pause: () => Promise<void>,
): Promise<T[]> {
  const found: T[] = [];
  for (const t of tools) {
    const run = pattern.steps(`${t.name}\n${t.description}`, budget);
    let step = run.next();
    while (!step.done) {
      await pause();
      step = run.next();
    }
    if (step.value && found.push(t) === REGEX_LIMIT) break;
  }
  return found;
}
