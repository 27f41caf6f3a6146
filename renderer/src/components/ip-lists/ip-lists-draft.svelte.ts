/**
 * The global IP lists as the page edits them (design 2c): two text boxes, one entry per line. What is
 * sent is what the engine keeps (trimmed, blank lines dropped, each entry once), so an engine problem
 * naming an entry's place (`pass: line 3`, or the schema's `pass.2`) is marked on the line of the box
 * that entry came from. Imports merge into or replace a box; removals are counted before a save.
 */
import { ApiError } from '$lib/api.ts';
import { entriesMissing, entryLines, lineOf, sameEntries, type EntryLines } from '$lib/entry-lines.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { fills, i18n, t } from '$lib/i18n.svelte.ts';
import type { IpListsView } from '$lib/contracts.ts';

export type ListName = keyof IpListsView;
export const LIST_NAMES: readonly ListName[] = ['pass', 'block'];
/** The engine's bound (engine/api/contracts/ip-lists.contract.ts). */
export const LIST_MAX = 10_000;

export type ImportMode = 'merge' | 'replace';

/**
 * One list's refusals: a text per problem, the lines of the box they name, and the box's text they
 * were said about (once it is edited, its line numbers no longer hold).
 */
export interface ListProblems {
  messages: string[];
  lines: number[];
  text: string;
}

function noProblems(): Record<ListName, ListProblems> {
  return { pass: { messages: [], lines: [], text: '' }, block: { messages: [], lines: [], text: '' } };
}

export class IpListsDraft {
  text = $state<Record<ListName, string>>({ pass: '', block: '' });
  /** The lists as the engine holds them. */
  saved = $state<IpListsView>({ pass: [], block: [] });
  problems = $state<Record<ListName, ListProblems>>(noProblems());

  load(lists: IpListsView): void {
    this.saved = { pass: [...lists.pass], block: [...lists.block] };
    this.text = { pass: lists.pass.join('\n'), block: lists.block.join('\n') };
    this.problems = noProblems();
  }

  list(name: ListName): EntryLines {
    return entryLines(this.text[name], { unique: true });
  }

  count(name: ListName): number {
    return this.list(name).entries.length;
  }

  get dirty(): boolean {
    return LIST_NAMES.some((name) => !sameEntries(this.list(name).entries, this.saved[name]));
  }

  toInput(): IpListsView {
    return { pass: this.list('pass').entries, block: this.list('block').entries };
  }

  /** The saved entries a save would drop, per list. */
  removed(): Record<ListName, string[]> {
    return {
      pass: entriesMissing(this.saved.pass, this.list('pass').entries),
      block: entriesMissing(this.saved.block, this.list('block').entries),
    };
  }

  /** Puts a file's entries in a box: added after what it holds (each once), or instead of it. */
  importText(name: ListName, fileText: string, mode: ImportMode): { added: number } {
    const incoming = entryLines(fileText.replace(/\r\n?/g, '\n'), { unique: true }).entries;
    if (mode === 'replace') {
      this.text[name] = incoming.join('\n');
      return { added: incoming.length };
    }
    const current = this.list(name).entries;
    const fresh = entriesMissing(incoming, current);
    this.text[name] = [...current, ...fresh].join('\n');
    return { added: fresh.length };
  }

  /** A box's entries as a file: one per line, ending with a newline. */
  exportText(name: ListName): string {
    const { entries } = this.list(name);
    return entries.length > 0 ? `${entries.join('\n')}\n` : '';
  }

  /** The refusals of a list while its box holds what they were said about. */
  problemsOf(name: ListName): ListProblems | null {
    const problems = this.problems[name];
    return problems.messages.length > 0 && problems.text === this.text[name] ? problems : null;
  }

  /**
   * Places an engine refusal on the lists it names. False when it names neither (the page says it
   * as a whole).
   */
  placeError(error: unknown): boolean {
    if (!(error instanceof ApiError) || error.code !== 'VALIDATION_FAILED') return false;
    const next = noProblems();
    for (const name of LIST_NAMES) next[name].text = this.text[name];
    let placed = false;
    for (const part of error.parts()) {
      const where = /^(pass|block)(?:[.[](\d+)\]?)?$/.exec(part.field ?? '');
      if (!where) continue;
      const name = where[1] as ListName;
      const list = this.list(name);
      // The engine counts the entries it was sent from 1 (`line`); the schema names an index.
      const index =
        where[2] !== undefined ? Number(where[2]) : typeof part.params.line === 'number' ? part.params.line - 1 : null;
      const line = index === null ? null : lineOf(list, index);
      const value = list.entries[index ?? -1];
      next[name].messages.push(problemText(part, line, value));
      if (line !== null) next[name].lines.push(line);
      placed = true;
    }
    this.problems = next;
    return placed;
  }
}

/** One list problem in the console's language, with the line of the box it names. */
function problemText(part: ApiError, line: number | null, value: string | undefined): string {
  const reason = part.params.reason;
  const params = { ...part.params, line: line ?? '', value: value ?? String(part.params.value ?? '') };
  let detail: string;
  if (reason === 'not_ip') detail = t('ipLists.problem.notIp', params);
  else if (reason === 'prefix_length' && fills('ipLists.problem.prefixLength', params))
    detail = t('ipLists.problem.prefixLength', params);
  else if (line === null && part.params.max === LIST_MAX)
    detail = t('ipLists.problem.tooMany', { max: LIST_MAX.toLocaleString(i18n.locale) });
  else detail = part.code === 'VALIDATION_FAILED' ? detailText(part) : errorMessage(part);
  return line === null ? detail : t('ipLists.problem.line', { line, detail });
}
