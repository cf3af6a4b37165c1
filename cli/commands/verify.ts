// catalog verify: format, content hash, canonical bytes and index integrity of one catalog file.

import { defineCommand } from "citty";
import { catalogLabel } from "../../worker/core/catalog.ts";
import { catalogArg, out } from "../args.ts";
import { readCatalogFile } from "../lib/files.ts";

export default defineCommand({
  meta: {
    name: "verify",
    description:
      "Check a catalog file: format, content hash, canonical bytes, and that its search index restores and matches its tools. Exit 0 or one line with the reason.",
  },
  args: { catalog: catalogArg },
  async run({ args }) {
    const { catalog } = await readCatalogFile(args.catalog);
    out(`ok: ${catalogLabel(catalog)} (${catalog.tools.length} tools, ${catalog.servers.length} servers, hash ${catalog.hash})`);
  },
});
