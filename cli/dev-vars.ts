#!/usr/bin/env node
// Local secrets for `npm start`, with no well-known key: a page that rebinds its domain to
// 127.0.0.1 could otherwise call a local Worker with a key printed in this repository.
//   node cli/dev-vars.ts init   writes .dev.vars from .dev.vars.example when it is missing, with a
//                               random development key and token-sealing key; prints the key
//   node cli/dev-vars.ts key    prints the development key (the first key of API_KEYS) alone, for
//                               the walkthroughs: A="authorization: Bearer $(node cli/dev-vars.ts key)"
// TOOLSEARCH_DEV_VARS names another file than ./.dev.vars (the docs test points it at its own).

import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const file = process.env.TOOLSEARCH_DEV_VARS ?? join(process.cwd(), ".dev.vars");

function fail(message: string): never {
  process.stderr.write(`dev-vars: ${message}\n`);
  process.exit(1);
}

/** The first key of the file's API_KEYS, or a one-line failure naming what is wrong. */
function devKey(): string {
  if (!existsSync(file)) fail(`${file} is missing: run npm start once (it writes one with a random key)`);
  const raw = /^API_KEYS='(.*)'$/m.exec(readFileSync(file, "utf8"))?.[1];
  if (!raw) fail(`${file} has no API_KEYS='{...}' line`);
  let keys: string[];
  try {
    keys = Object.keys(JSON.parse(raw) as Record<string, unknown>);
  } catch {
    fail(`API_KEYS in ${file} is not valid JSON`);
  }
  if (!keys[0]) fail(`API_KEYS in ${file} names no key`);
  return keys[0];
}

function init(): void {
  if (existsSync(file)) {
    process.stderr.write(`toolsearch: development key (from ${file}): ${devKey()}\n`);
    return;
  }
  const key = `dev-${randomBytes(18).toString("base64url")}`;
  const text = readFileSync(join(ROOT, ".dev.vars.example"), "utf8")
    .replace(/^API_KEYS='.*'$/m, `API_KEYS='${JSON.stringify({ [key]: "dev" })}'`)
    .replace(/^TOKEN_ENCRYPTION_KEY=.*$/m, `TOKEN_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`);
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`toolsearch: wrote ${file} with a new random development key: ${key}\n`);
}

const verb = process.argv[2];
if (verb === "init") init();
else if (verb === "key") process.stdout.write(`${devKey()}\n`);
else fail("usage: node cli/dev-vars.ts init | key");
