/**
 * The first free name for a copy of `name`: "<name> copy", "<name> copy 2", ... (`suffix` gives
 * another form; sites use " (copy)", " (copy 2)"). Names are compared trimmed and without case, and
 * the original is cut so that the name with its suffix fits in `max` characters.
 */
export function copyName(
  name: string,
  taken: Iterable<string>,
  max = Number.POSITIVE_INFINITY,
  suffix: (n: number) => string = (n) => (n === 1 ? ' copy' : ` copy ${n}`),
): string {
  const used = new Set<string>();
  for (const t of taken) used.add(t.trim().toLowerCase());
  for (let n = 1; ; n++) {
    const end = suffix(n);
    const candidate = `${name.slice(0, Math.max(0, max - end.length))}${end}`;
    if (!used.has(candidate.trim().toLowerCase())) return candidate;
  }
}
