/**
 * A list typed one entry per line, as the engine keeps it: each line trimmed, blank lines dropped
 * and, for a set, each entry once. `lines[i]` is the 1-based line of the text box `entries[i]` came
 * from, so a problem the engine names by its place in the list is marked on the line the person sees.
 */
export interface EntryLines {
  entries: string[];
  lines: number[];
}

export function entryLines(text: string, { unique = false }: { unique?: boolean } = {}): EntryLines {
  const entries: string[] = [];
  const lines: number[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, i) => {
    const entry = raw.trim();
    if (entry === '' || (unique && seen.has(entry))) return;
    seen.add(entry);
    entries.push(entry);
    lines.push(i + 1);
  });
  return { entries, lines };
}

/** The text box's line of the entry at `index` (0-based) of the list, or null when there is none. */
export function lineOf(list: EntryLines, index: number): number | null {
  return list.lines[index] ?? null;
}

/** The entries of `from` that `other` does not hold, in order. */
export function entriesMissing(from: readonly string[], other: readonly string[]): string[] {
  const held = new Set(other);
  return from.filter((entry) => !held.has(entry));
}

/** Whether two lists hold the same entries, whatever their order. */
export function sameEntries(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && entriesMissing(a, b).length === 0;
}
