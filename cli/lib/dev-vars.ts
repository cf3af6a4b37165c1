// Local secrets for `npm start` and `npm run demo`, with no well-known key: a page that rebinds its
// domain to 127.0.0.1 could otherwise call a local Worker with a key printed in this repository.
// One file, ./.dev.vars (TOOLSEARCH_DEV_VARS names another: the tests point it at their own),
// written from .dev.vars.example when missing with a random development key and token-sealing
// key; both the Worker of `npm start` and the demo serve its key, which `npm run -s key` prints.

import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");

/** A one-line failure naming what is wrong with the file. */
export class DevVarsError extends Error {}

export const devVarsFile = (): string => process.env.TOOLSEARCH_DEV_VARS ?? join(process.cwd(), ".dev.vars");

/** The file's API_KEYS value, as wrangler reads it. */
export function devApiKeys(file = devVarsFile()): string {
  if (!existsSync(file)) throw new DevVarsError(`${file} is missing: run npm start once (it writes one with a random key)`);
  const raw = /^API_KEYS='(.*)'$/m.exec(readFileSync(file, "utf8"))?.[1];
  if (!raw) throw new DevVarsError(`${file} has no API_KEYS='{...}' line`);
  return raw;
}

/** The first key of the file's API_KEYS. */
export function devKey(file = devVarsFile()): string {
  let keys: string[];
  try {
    keys = Object.keys(JSON.parse(devApiKeys(file)) as Record<string, unknown>);
  } catch (e) {
    if (e instanceof DevVarsError) throw e;
    throw new DevVarsError(`API_KEYS in ${file} is not valid JSON`);
  }
  if (!keys[0]) throw new DevVarsError(`API_KEYS in ${file} names no key`);
  return keys[0];
}

/** Writes the file when it is missing; says on stderr which key it serves. */
export function initDevVars(file = devVarsFile()): string {
  if (existsSync(file)) {
    const key = devKey(file);
    process.stderr.write(`toolsearch: development key (from ${file}): ${key}\n`);
    return key;
  }
  const key = `dev-${randomBytes(18).toString("base64url")}`;
  const text = readFileSync(join(ROOT, ".dev.vars.example"), "utf8")
    .replace(/^API_KEYS='.*'$/m, `API_KEYS='${JSON.stringify({ [key]: "dev" })}'`)
    .replace(/^TOKEN_ENCRYPTION_KEY=.*$/m, `TOKEN_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`);
  writeFileSync(`${file}.tmp`, text, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`toolsearch: wrote ${file} with a new random development key: ${key}\n`);
  return key;
}
