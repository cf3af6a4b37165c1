// The deployed Worker's entry (wrangler.toml `main`): the Worker of worker/index.ts with the files
// of this deployment, the catalogs of catalogs/ and the page, that wrangler's [build] bundled into
// worker/generated/files.ts (cli/lib/worker-files.ts) before dev and deploy.

import { useFiles } from "./files.ts";
import { files } from "./generated/files.ts";

useFiles(files);

export { default, SessionDO } from "./index.ts";
