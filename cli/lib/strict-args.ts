// A strict command line. citty (0.2) parses with `strict: false`: a misspelled flag (`--limt 2`)
// was silently ignored and the command ran with its default, and a misspelled command answered
// "Unknown command serch (see catalog serch --help)", pointing at a command that does not exist.
// Before citty runs, the command name and every flag are checked against the definitions; an
// unknown one is a UsageError naming the closest real one (exit 2, as getopt tools do).

import type { ArgsDef, CommandDef, Resolvable } from "citty";
import { distance } from "../../worker/core/select.ts";

export class UsageError extends Error {
  override name = "UsageError";
}

const resolve = async <T>(v: Resolvable<T>): Promise<T> => (typeof v === "function" ? (v as () => T | Promise<T>)() : v);
const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The closest of `names` to `word`, when it is close enough to be a typo of it. */
export function closest(word: string, names: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const d = distance(word.toLowerCase(), name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}

/** Every spelling citty accepts for the command's flags: names, kebab and camel forms, aliases, --no-<boolean>. */
function flagNames(args: ArgsDef): Set<string> {
  const names = new Set(["help", "h"]);
  for (const [name, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    const aliases = "alias" in def && def.alias ? [def.alias].flat() : [];
    for (const n of [name, kebab(name), camel(name), ...aliases]) {
      names.add(n);
      if (def.type === "boolean") names.add(`no-${n}`);
    }
  }
  return names;
}

/** The flags of `rawArgs` (`--name`, `--name=value`, `-c`), up to a `--`. */
function flagsOf(rawArgs: string[]): Array<{ raw: string; name: string }> {
  const flags: Array<{ raw: string; name: string }> = [];
  for (const arg of rawArgs) {
    if (arg === "--") break;
    if (arg.startsWith("--")) flags.push({ raw: arg.split("=")[0]!, name: arg.slice(2).split("=")[0]! });
    else if (/^-[a-zA-Z]/.test(arg)) for (const c of arg.slice(1).split("=")[0]!) flags.push({ raw: `-${c}`, name: c });
  }
  return flags;
}

/** Throws a UsageError for an unknown command or flag of `main`'s command line. */
export async function checkCommandLine(main: CommandDef, rawArgs: string[]): Promise<void> {
  const subCommands = (await resolve(main.subCommands ?? {})) as Record<string, Resolvable<CommandDef>>;
  const commands = Object.keys(subCommands);
  const [name, ...rest] = rawArgs;
  if (!name || name.startsWith("-")) {
    throw new UsageError(
      `${name ? `unknown flag ${name.split("=")[0]}` : "no command given"}; the commands: ${commands.join(", ")} (see catalog --help)`,
    );
  }
  if (!(name in subCommands)) {
    const hint = closest(name, commands);
    throw new UsageError(
      `unknown command ${name}; ${hint ? `did you mean ${hint}?` : `the commands: ${commands.join(", ")}`} (see catalog --help)`,
    );
  }
  const cmd = await resolve(subCommands[name]!);
  const known = flagNames(await resolve(cmd.args ?? {}));
  for (const flag of flagsOf(rest)) {
    if (known.has(flag.name)) continue;
    const long = [...known].filter((n) => n.length > 1 && !n.startsWith("no-") && n !== "help" && n === kebab(n));
    const hint = closest(flag.name, long);
    throw new UsageError(
      `unknown flag ${flag.raw} for catalog ${name}${hint ? `; did you mean --${hint}?` : `; its flags: ${long.map((n) => `--${n}`).join(", ")}`} (see catalog ${name} --help)`,
    );
  }
}
