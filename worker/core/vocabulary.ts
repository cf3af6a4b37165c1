// Query-side word lists of the tool domain: stop words and the abbreviation/synonym table. They
// change how a query is read, never what is indexed, so editing them needs no catalog rebuild.
// Words here are written plainly and normalised with the tokenizer's own plural folding, so a
// table entry and a query word always meet in the same form.

import { foldPlural } from "./search-text.ts";

/**
 * Query words that carry no meaning for tool choice. Dropped from queries (when other words
 * remain), not from the index. Function words, plus the request phrasing of task-style queries
 * ("could you help me ... and tell me ..."): in a long query they are most of the words, and
 * each one that happens to sit in a short tool name ("Give", "Help") pulls that tool up.
 * "show", "find", "get" stay: they name actions tools have.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  [
    "a an and are as at be by for from has have i if in into is it its me my of on or our please so that the their them then there these this those to was we were what when where which while will with you your",
    "also any can could did do does help just know let need provide should some tell give want would",
  ]
    .join(" ")
    .split(" ")
    .map(foldPlural),
);

/**
 * Abbreviations and synonyms of this domain, applied to queries only (the index keeps the tools'
 * own words): each query word also searches for these, at EXPANSION_WEIGHT of a typed word.
 * `a b c` is a group of mutual synonyms; `abbr=several words` expands one way, from the
 * abbreviation (`pr` finds "pull request", but "request" must not find every PR tool).
 */
const SYNONYM_GROUPS = [
  "repo repository",
  "pr=pull request",
  "mkdir=create directory",
  "db database",
  "dir directory folder",
  "msg message",
  "k8s kubernetes",
  "doc docs document documentation",
  "img image picture photo",
  "config configuration settings",
  "env environment",
  "auth authentication login",
  "info information details",
  "stats statistics",
  "delete remove",
  "get retrieve",
  "find search",
  "js javascript",
  "ts typescript",
  "url link",
  "screenshot screen capture",
];
export const EXPANSION_WEIGHT = 0.5;

export const SYNONYMS: ReadonlyMap<string, string[]> = (() => {
  const map = new Map<string, string[]>();
  const add = (word: string, more: string[]) => {
    const list = map.get(word) ?? [];
    for (const m of more) if (m !== word && !list.includes(m)) list.push(m);
    map.set(word, list);
  };
  for (const group of SYNONYM_GROUPS) {
    const [abbr, expansion] = group.split("=");
    if (expansion !== undefined) {
      add(foldPlural(abbr!), expansion.split(" ").map(foldPlural));
      continue;
    }
    const words = [...new Set(group.split(" ").map(foldPlural))];
    for (const w of words) add(w, words);
  }
  return map;
})();
