// Every `sh` block in README.md and docs/*.md runs as written, against a started Worker: wrangler dev
// (test/fixtures/wrangler-dev.ts) on a free port with the demo catalog and the development key of
// .dev.vars.example, its upstream model the scripted one (test/fixtures/scripted-llm.ts, standing in
// for a model account), the key the blocks read with `npm run -s key` from a .dev.vars of its own
// (TOOLSEARCH_DEV_VARS), and SERVERS naming server-everything (the demo catalog's `everything`) on a
// free port, as the edge walkthrough's first block starts it. The one substitution: the documented
// address `localhost:8787` or `127.0.0.1:8787` gets the started Worker's port. A block runs in bash
// from the repo root with `-e -o pipefail` (a failing step fails the block, as a user would see it
// stop), and a failure names its file and line. It runs on the Node a user already has: the
// system's `node` first on PATH and no node_modules/.bin on it (vitest runs on the repository's
// Node 22; a block that ran `node cli/x.ts` passed here and failed on a user's Node 20), so only
// npm scripts and the package's bins reach Node 22. A block holding the comment line
// `# not run by the docs test: <why>` is skipped, and listed with its reason. The README's model
// blocks also run pasted (no -e) while the model fails: they print the Worker's message.
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEverything } from "../fixtures/edge-servers.ts";
import { startScriptedLLM, type ScriptedLLM } from "../fixtures/scripted-llm.ts";
import { DEV_API_KEYS, startWranglerDev, type DevServer } from "../fixtures/wrangler-dev.ts";
import { ROOT, tempDir } from "./helpers.ts";

const MARKER = /^# not run by the docs test: (.+)$/m;
const FILES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

interface Block {
  where: string;
  text: string;
  skip: string | null;
}

function shellBlocks(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(```+)\s*(\S*)/.exec(lines[i]!);
    if (!fence) continue;
    const end = lines.findIndex((l, j) => j > i && l.trim() === fence[2]);
    if (end < 0) throw new Error(`${file}:${i + 1}: code block never closed`);
    if (fence[3] === "sh") {
      const text = lines.slice(i + 1, end).join("\n");
      blocks.push({ where: `${file}:${i + 1}`, text, skip: MARKER.exec(text)?.[1] ?? null });
    }
    i = end;
  }
  return blocks;
}

const blocks = FILES.flatMap(shellBlocks);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");

/** Relative links (and their #anchors) that lead nowhere, as `file: target`. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8").replace(/^```[\s\S]*?^```/gm, "");
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    const [path, anchor] = target!.split("#");
    const dest = path ? join(ROOT, dirname(file), path) : join(ROOT, file);
    if (!existsSync(dest)) broken.push(`${file}: ${target}`);
    else if (anchor && dest.endsWith(".md")) {
      const headings = [...readFileSync(dest, "utf8").matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1]!));
      if (!headings.includes(anchor)) broken.push(`${file}: ${target}`);
    }
  }
  return broken;
}

/** A user's PATH: the system's `node` (the first one outside any node_modules) first, no node_modules/.bin. */
function userPath(): { path: string; systemNode: string | null } {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter((d) => d && !d.includes("node_modules"));
  const systemDir = dirs.find((d) => {
    try {
      accessSync(join(d, "node"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  if (!systemDir) return { path: dirs.join(delimiter), systemNode: null };
  return { path: [systemDir, ...dirs.filter((d) => d !== systemDir)].join(delimiter), systemNode: join(systemDir, "node") };
}

const USER = userPath();
/** The environment of a user's terminal: no npm_* variables of the `npm test` that runs this file. */
const userEnv = (devVars: string) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== "NODE")),
  PATH: USER.path,
  TOOLSEARCH_DEV_VARS: devVars,
});

/** The block in bash; `pasted`: without -e, as a user's interactive shell runs what is pasted into it. */
function run(text: string, port: number, devVars: string, pasted = false): Promise<{ code: number | null; out: string }> {
  const script = text.replace(/\b(localhost|127\.0\.0\.1):8787\b/g, `$1:${port}`);
  return new Promise((resolve) => {
    const child = spawn("bash", [...(pasted ? [] : ["-e"]), "-o", "pipefail", "-c", script], {
      cwd: ROOT,
      env: userEnv(devVars),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

let llm: ScriptedLLM;
let everything: { url: string; stop(): Promise<void> };
let dev: DevServer;
let devVars: string;

beforeAll(async () => {
  devVars = join(await tempDir("toolsearch-docs-vars-"), ".dev.vars");
  writeFileSync(devVars, `API_KEYS='${DEV_API_KEYS}'\n`);
  [llm, everything] = await Promise.all([startScriptedLLM(), startEverything()]);
  dev = await startWranglerDev({
    persistTo: await tempDir("toolsearch-docs-"),
    vars: { OPENAI_BASE_URL: llm.url, OPENAI_API_KEY: "docs-test", SERVERS: JSON.stringify({ everything: { url: everything.url } }) },
  });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await llm?.close();
  await everything?.stop();
});

describe("the docs' shell blocks", () => {
  it("are found, and every skipped one says why", () => {
    expect(blocks.filter((b) => !b.skip).length).toBeGreaterThan(10);
    const skipped = blocks.filter((b) => b.skip).map((b) => `${b.where}: ${b.skip}`);
    console.log(`shell blocks not run by the docs test:\n  ${skipped.join("\n  ")}`);
    for (const b of blocks) if (/not run by the docs test/.test(b.text)) expect(b.skip, b.where).toMatch(/\S{3}/);
  });

  it("run on the system's node, not the repository's: `node` outside node_modules comes first", async () => {
    const { code, out } = await run('command -v node; node -p "process.version"', 0, devVars);
    expect(code, out).toBe(0);
    const [where, version] = out.trim().split("\n");
    expect(where).not.toMatch(/node_modules/);
    if (USER.systemNode) expect(where).toBe(USER.systemNode);
    // on this machine the system's node is older than the repository's: a block calling `node x.ts` fails
    console.log(`docs blocks run on ${where} ${version}; the repository's node is ${process.version}`);
  });

  it("link only to files and headings that exist", () => {
    expect(FILES.flatMap(brokenLinks)).toEqual([]);
  });

  for (const b of blocks) {
    if (b.skip) {
      it.skip(`${b.where} (not run: ${b.skip})`, () => {});
      continue;
    }
    it(`${b.where} runs as written`, async () => {
      const port = Number(new URL(dev.url).port);
      const { code, out } = await run(b.text, port, devVars);
      expect(code, `${b.where} failed (exit ${code}):\n${out.slice(-3000)}`).toBe(0);
    }, 250_000);
  }
});

// A newcomer's first failure (issue 41): the chat block against a Worker whose model does not
// answer printed `curl: (22) ... 502` and a TypeError, the Worker's message only in the saved file.
describe("README's model walkthroughs, pasted when the model fails", () => {
  const modelBlocks = blocks.filter(
    (b) => b.where.startsWith("README.md:") && !b.skip && /\/v1\/(chat\/completions|responses|messages)\b/.test(b.text),
  );

  it("are the chat, Responses and Messages blocks", () => {
    expect(modelBlocks.map((b) => /\/v1\/(chat\/completions|responses|messages)\b/.exec(b.text)![1])).toEqual([
      "chat/completions",
      "responses",
      "messages",
    ]);
  });

  for (const b of modelBlocks) {
    it(`${b.where} prints the Worker's message, not a TypeError`, async () => {
      llm.reset();
      llm.fail({ status: 503 }, { status: 503 }, { status: 503 }); // every try of the first request
      const { out } = await run(b.text, Number(new URL(dev.url).port), devVars, true);
      llm.reset();
      expect(out).toMatch(/returned error: 502/); // curl's line
      expect(out).toMatch(/^upstream answered 503 \(tried 3 times\)/m); // and the Worker's, from the saved answer
      expect(out).not.toMatch(/TypeError|Cannot read properties/);
    }, 120_000);
  }
});
