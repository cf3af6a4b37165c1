// catalog search: run a toolSearch query against a catalog file with the ranking and result text
// the Worker uses (core/search.ts); no session, so nothing is loaded or audited.

import { defineCommand } from "citty";
import { ToolsearchError } from "../../worker/core/errors.ts";
import { DEFAULT_LIMIT, parseQuery, runSearch, searchCatalog } from "../../worker/core/search.ts";
import { formatResult } from "../../worker/core/search-result.ts";
import { catalogArg, jsonArg, out } from "../args.ts";
import { readCatalogFile } from "../lib/files.ts";

export default defineCommand({
  meta: {
    name: "search",
    description:
      "Run a toolSearch query on a catalog exactly as the Worker does: `select:a,b` exact or grouped short names (`github.create_issue`), keywords (BM25), " +
      "`+word` required, `mcp__<server> words` on one server, `mcp__<server> [page:N]` alone to browse. Prints ranked names, scores, the query words each matched, and one-line descriptions.",
  },
  args: {
    catalog: catalogArg,
    query: {
      type: "positional",
      description: 'The query, e.g. "create issue github" or "select:mcp__github__create_issue"',
      required: true,
    },
    limit: { type: "string", description: `Results to return (1-20, default ${DEFAULT_LIMIT})`, valueHint: "n" },
    json: jsonArg,
  },
  async run({ args }) {
    const limit = args.limit === undefined ? undefined : Number(args.limit);
    const { catalog, index } = await readCatalogFile(args.catalog);
    const parsed = parseQuery(args.query, limit);
    if (parsed.kind === "error") throw new ToolsearchError("bad_request", parsed.message.replace(/^Error: /, ""));
    const outcome = runSearch(searchCatalog(catalog.tools, index), parsed, limit ?? DEFAULT_LIMIT);
    if (outcome.kind === "browse") {
      if (args.json)
        return out(
          JSON.stringify(
            { query: args.query, browse: { ...outcome, tools: outcome.tools.map((t) => ({ name: t.name, description: t.description })) } },
            null,
            2,
          ),
        );
      return out(formatResult(outcome, [], [], args.query));
    }
    const rows =
      outcome.kind === "select"
        ? outcome.found.map((t) => ({ name: t.name, score: 1, description: t.description, words: [] as string[] }))
        : outcome.kind === "keywords"
          ? outcome.matches
          : [];
    const unknown = outcome.kind === "select" ? outcome.unknown : [];
    if (args.json) return out(JSON.stringify({ query: args.query, results: rows, unknown }, null, 2));
    if (!rows.length && !unknown.length) return out("no matches");
    for (const r of rows)
      out(
        `${r.score.toFixed(3).padStart(8)}  ${r.name}${r.words.length ? `  [${r.words.join(" ")}]` : ""}  ${r.description.replace(/\s+/g, " ").slice(0, 100)}`,
      );
    for (const u of unknown) out(`unknown: ${u.name} (closest: ${u.suggestions.join(", ")})`);
  },
});
