// `--help` that fits a terminal. citty renders each table (commands, options) by padding every
// row to the widest cell and never wraps, so one long description pads every line of the table
// to its width (about 450 columns for `catalog --help`). Here the padding is trimmed and a line
// wider than WIDTH wraps at spaces, continuing under its own description column.

import { renderUsage, type ArgsDef, type CommandDef } from "citty";

export const USAGE_WIDTH = 100;

const ANSI = /\x1b\[[0-9;]*m/g;
const visible = (s: string): number => s.replace(ANSI, "").length;
/** Trailing spaces, also those before a closing colour code (`[OPTIONS] \x1b[39m`). */
const trimEnd = (s: string): string => s.replace(/ +((?:\x1b\[[0-9;]*m)*)$/, "$1");

/**
 * The column a row's description starts at: after the first gap of two or more spaces (`  --json
 * Print ...`), or 0 for a paragraph. A gap past half the width would leave too little room: 4.
 */
function descriptionColumn(plain: string, width: number): number {
  const gap = /^(\s*\S+(?: \S+)*\s{2,})\S/.exec(plain);
  const col = gap ? gap[1]!.length : 0;
  return col > width / 2 ? 4 : col;
}

/** One line, wrapped at spaces to `width` visible columns (colour codes count for nothing). */
export function wrapLine(line: string, width = USAGE_WIDTH): string[] {
  const trimmed = trimEnd(line);
  if (visible(trimmed) <= width) return [trimmed];
  const col = descriptionColumn(trimmed.replace(ANSI, ""), width);
  const out: string[] = [];
  let current = "";
  let used = 0;
  trimmed.split(" ").forEach((word, i) => {
    const w = visible(word);
    // never break inside the left column (the name and its padding)
    if (i > 0 && used > col && used + 1 + w > width && w > 0) {
      out.push(trimEnd(current));
      current = " ".repeat(col) + word;
      used = col + w;
    } else {
      current = i === 0 ? word : `${current} ${word}`;
      used += (i === 0 ? 0 : 1) + w;
    }
  });
  out.push(trimEnd(current));
  return out;
}

/** citty's usage text, trimmed and wrapped. */
export function fitUsage(text: string, width = USAGE_WIDTH): string {
  return text
    .split("\n")
    .flatMap((line) => wrapLine(line, width))
    .join("\n");
}

/** runMain's `showUsage`: what citty prints for --help and after a usage error, fitted to USAGE_WIDTH. */
export async function showUsage<T extends ArgsDef = ArgsDef>(cmd: CommandDef<T>, parent?: CommandDef<T>): Promise<void> {
  console.log(`${fitUsage(await renderUsage(cmd, parent))}\n`);
}
