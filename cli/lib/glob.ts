// Tool-name globs for include/exclude/alwaysLoad: `*` any run of characters, `?` one character,
// everything else literal; a glob matches the whole original tool name.

export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${body}$`);
}

export function matchesAny(name: string, globs: readonly string[] | undefined): boolean {
  return (globs ?? []).some((g) => globToRegExp(g).test(name));
}
