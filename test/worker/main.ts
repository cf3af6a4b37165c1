// The test deployment's entry (wrangler.toml [env.test] `main`; the workers tests import it through
// helpers.ts): the Worker with the test catalogs of test/worker/catalogs/ and the page, bundled into
// test/worker/catalogs/files.ts by prepare-catalogs.ts before workerd starts.

import { useFiles } from "../../worker/files.ts";
import { files } from "./catalogs/files.ts";

useFiles(files);

export { default, SessionDO } from "../../worker/index.ts";
