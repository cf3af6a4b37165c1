#!/usr/bin/env node
// `npm install`'s postinstall: one line that explains npm's EBADENGINE warnings on an older Node.
// npm checks each package's `engines` against the Node that runs npm itself (the system's), but
// this project runs on the Node 22 it installs as a devDependency (node_modules/.bin/node comes
// first on the PATH of every npm script and of `npx catalog`), so those warnings are harmless.

const npmNode = /\bnode\/v(\d+)/.exec(process.env.npm_config_user_agent ?? "")?.[1];
if (npmNode && Number(npmNode) < 22) {
  process.stderr.write(
    `toolsearch: npm runs on Node ${npmNode}; the EBADENGINE warnings name packages that need Node 22, which this install brought: every npm script and npx catalog run on it (${process.version})\n`,
  );
}
