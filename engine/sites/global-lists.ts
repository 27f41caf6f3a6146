import type { ConfigSlice, GlobalIpListsRecord } from '#engine/config-store';
import { isRampartError, problemsOf, validationFailed, type FieldProblem } from '#engine/shared';
import { compileIpList, type IpMatcher } from './lists.ts';

/** At most this many entries per list (addresses and CIDR ranges). */
export const GLOBAL_LIST_MAX = 10_000;

export type GlobalListResult = 'pass' | 'block' | null;

/**
 * The global IP / CIDR pass and block lists every site shares: a client on the pass list is not
 * checked (IGNORE), one on the block list is blocked (BLOCKLIST); the pass list wins when both hold
 * an address, as with a site's lists. A site's own lists are read first.
 */
export class GlobalListsService {
  readonly #store: ConfigSlice<'ipLists'>;
  #compiled: { generation: number; pass: IpMatcher; block: IpMatcher } | null = null;

  constructor(store: ConfigSlice<'ipLists'>) {
    this.#store = store;
  }

  get(): GlobalIpListsRecord {
    const { pass, block } = this.#store.data.ipLists;
    return { pass: [...pass], block: [...block] };
  }

  /** Replaces both lists; every bad line of either is a problem (`pass`, line N). */
  async set(lists: GlobalIpListsRecord): Promise<GlobalIpListsRecord> {
    const clean = (lines: readonly string[]) => [...new Set(lines.map((l) => l.trim()).filter((l) => l !== ''))];
    const next = { pass: clean(lists.pass), block: clean(lists.block) };
    const problems: FieldProblem[] = [];
    for (const name of ['pass', 'block'] as const) {
      if (next[name].length > GLOBAL_LIST_MAX)
        problems.push({
          field: name,
          message: `${name}: at most ${GLOBAL_LIST_MAX} entries`,
          params: { max: GLOBAL_LIST_MAX },
        });
      try {
        compileIpList(next[name], name);
      } catch (error) {
        if (!isRampartError(error)) throw error;
        problems.push(...problemsOf(error));
      }
    }
    if (problems.length > 0) throw validationFailed(problems);
    await this.#store.update((doc) => {
      doc.ipLists = next;
    });
    return this.get();
  }

  /** The verdict's question, in O(1) for addresses and O(ranges) for CIDRs (node's BlockList). */
  check(ip: string): GlobalListResult {
    const generation = this.#store.generation;
    let compiled = this.#compiled;
    if (compiled === null || compiled.generation !== generation) {
      const { pass, block } = this.#store.data.ipLists;
      compiled = this.#compiled = {
        generation,
        pass: compileIpList(pass, 'pass'),
        block: compileIpList(block, 'block'),
      };
    }
    if (compiled.pass.empty && compiled.block.empty) return null;
    if (compiled.pass.has(ip)) return 'pass';
    return compiled.block.has(ip) ? 'block' : null;
  }
}
