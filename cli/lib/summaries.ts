// One line per server for the `servers` listing, made at build time: the first sentence of the
// server's description; else its title followed by its most distinctive tool words (a title is
// a name more than a description); else the first sentence of its instructions; else those words
// alone. Distinctive: in many of this server's tool names, on few other servers.

import { foldPlural, splitIdentifier, tokenize } from "../../worker/core/search-text.ts";
import { STOP_WORDS } from "../../worker/core/vocabulary.ts";

export const SUMMARY_MAX = 100;
const WORDS = 6;

/** Words every kind of tool uses: they tell servers apart no better than "tool" does. */
const GENERIC = new Set(
  (
    "get list create update delete set add remove search find read write use tool server mcp new given specified specific data " +
    "information detail id name value all one using via based about current provided optional required string type object result " +
    "return item request response call run api default number true false option parameter field format the when " +
    "retrieve take many post patch put show make"
  )
    .split(" ")
    .map((w) => tokenize(w)[0] ?? w),
);

type SummaryTool = { server: string; originalName: string; title?: string; description: string };

export interface SummaryInput {
  name: string;
  title?: string;
  description?: string;
  instructions?: string;
}

/** The first sentence of some prose, without markdown marks, at most `max` characters. */
export function firstSentence(text: string, max = SUMMARY_MAX): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !/^#/.test(l));
  const prose = lines
    .join(" ")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*_]{1,3}/g, "")
    .replace(/^[-•>]\s*/, "")
    .replace(/\s+/g, " ")
    .trim();
  const end = /[.!?。](?=\s|$)/.exec(prose);
  const sentence = end ? prose.slice(0, end.index + 1) : prose;
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), Math.floor(max / 2))).replace(/[\s,;:]+$/, "")}…`;
}

/** Words as written (lowercase, identifiers split), each with the key it is counted under (plural folded). */
function words(text: string): Array<[key: string, word: string]> {
  return splitIdentifier(text)
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((w) => [foldPlural(w), w]);
}

/**
 * Each server's most distinctive words. Tool names speak for a server; descriptions only break
 * ties (their boilerplate, "only works within allowed directories", is in every tool of a server
 * and on no other, so it would look distinctive), and tell a one-tool server by how often it uses
 * a word. Words of the server's own name are left out; a word shows as it is most often written.
 */
function distinctiveWords(servers: readonly SummaryInput[], tools: readonly SummaryTool[]): Map<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  const spread = new Map<string, Set<string>>();
  const written = new Map<string, Map<string, number>>();
  for (const t of tools) {
    const label = t.server.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");
    const weigh = new Map<string, number>();
    for (const [key, word] of words(`${t.originalName} ${t.title ?? ""}`)) {
      weigh.set(key, 1);
      const forms = written.get(key) ?? new Map<string, number>();
      written.set(key, forms.set(word, (forms.get(word) ?? 0) + 1));
    }
    for (const [key, word] of words(t.description)) {
      if (weigh.get(key) === 1) continue;
      weigh.set(key, (weigh.get(key) ?? 0) + 0.01);
      if (!written.has(key)) written.set(key, new Map([[word, 0]]));
    }
    const c = counts.get(t.server) ?? new Map<string, number>();
    counts.set(t.server, c);
    for (const [w, n] of weigh) {
      if (w.length < 3 || /^\d+$/.test(w) || STOP_WORDS.has(w) || GENERIC.has(w) || label.includes(w)) continue;
      c.set(w, (c.get(w) ?? 0) + n);
      spread.set(w, (spread.get(w) ?? new Set()).add(t.server));
    }
  }
  const show = (key: string) =>
    [...written.get(key)!].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))[0]![0];
  const out = new Map<string, string[]>();
  for (const s of servers) {
    const scored = [...(counts.get(s.name) ?? [])].map(([w, n]) => [w, n * Math.log(1 + servers.length / spread.get(w)!.size)] as const);
    scored.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    out.set(
      s.name,
      scored.slice(0, WORDS).map(([w]) => show(w)),
    );
  }
  return out;
}

/** Every server's summary line, by server name. */
export function serverSummaries(servers: readonly SummaryInput[], tools: readonly SummaryTool[]): Map<string, string> {
  const distinctive = distinctiveWords(servers, tools);
  return new Map(
    servers.map((s) => {
      const own = distinctive.get(s.name) ?? [];
      const said = firstSentence(s.description ?? "") || (s.title ? "" : firstSentence(s.instructions ?? ""));
      if (said) return [s.name, said];
      // a title is a name more than a description: the server's own words follow it
      const title = firstSentence(s.title ?? "").replace(/[.:]$/, "");
      if (title) return [s.name, own.length ? `${title}: ${own.slice(0, 4).join(", ")}` : title];
      return [s.name, own.length ? own.join(", ") : "tools"];
    }),
  );
}
