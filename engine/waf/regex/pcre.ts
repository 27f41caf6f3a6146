/**
 * translatePcre: PCRE to JavaScript, as parse (pcre-parser.ts), analyse (pcre-analysis.ts), emit
 * twice (pcre-emitter.ts: the first pass numbers helper groups, the second writes backreferences
 * with the final numbers), and name the required literals (required-literals.ts).
 */
import { requiredLiterals } from './required-literals.ts';
import { Parser, PcreSyntaxError, type PcreOptions } from './pcre-parser.ts';
import { Emitter, type EmitContext } from './pcre-emitter.ts';
import { canUseIFlag, hasCaselessBackref } from './pcre-analysis.ts';

export type { AltNode, AssertNode, BackrefNode, GroupKind, GroupNode, Node, QuantNode, SetNode } from './pcre-ast.ts';
export type { PcreOptions } from './pcre-parser.ts';

export interface TranslatedRegex {
  /** JavaScript RegExp source: never needs the `u` flag, matches bytes of a binary string. */
  source: string;
  /** Some of `i` and `s`; never `u`, `m`, `g`, `y`. */
  flags: string;
  /**
   * JavaScript group index of each PCRE group: `groups[n]` for PCRE's `$n` (groups[0] = 0).
   * Differs from the identity only when atomic groups or possessive quantifiers needed helper
   * groups.
   */
  groups: readonly number[];
  /**
   * Strings of which every match contains at least one, ASCII letters lower-cased (see
   * required-literals.ts); undefined when no such list can be named (or the `i` flag is used).
   */
  required: readonly string[] | undefined;
}

/**
 * Translates a PCRE pattern (as ModSecurity compiles it: 8-bit, no UTF) into a JavaScript RegExp
 * source and flags that match the same bytes of a binary string (one char per byte).
 *
 * Throws an Error naming the construct and its offset when the pattern cannot be translated
 * (recursion, conditionals, verbs, `\p`, `\K`, `\X`, code points above 0xFF, branch reset groups
 * with captures, atomic groups inside lookbehinds, caseless backreferences in a pattern that is
 * only partly caseless).
 */
export function translatePcre(pattern: string, options: PcreOptions = {}): TranslatedRegex {
  try {
    const parser = new Parser(pattern, options);
    const root = parser.parse();
    const { possible, anyCaseless } = canUseIFlag(root);
    // Caseless letters are written as classes ([Aa]) rather than with the `i` flag: V8's linear-time
    // engine, which takes over from runaway backtracking (see backtrack-guard.ts), cannot run `i`.
    // The flag is kept only where it is needed for correctness: caseless backreferences.
    const useI = possible && anyCaseless && hasCaselessBackref(root);
    if (!useI && hasCaselessBackref(root)) {
      throw new PcreSyntaxError(
        'a caseless backreference in a pattern that is only partly caseless (or caseless on Latin-1 letters) cannot be translated',
      );
    }
    const useS = options.dotall === true;
    const groupMap: number[] = [0];
    for (let n = 1; n <= parser.captureCount; n++) groupMap[n] = n;
    const ctx: EmitContext = { useI, useS, nextGroup: 1, groupMap, inBehind: false };
    // First pass assigns JavaScript group numbers (helper groups shift later captures); the second
    // writes backreferences with the final numbers.
    new Emitter(ctx).alt(root);
    const finalMap = [...ctx.groupMap];
    const ctx2: EmitContext = { useI, useS, nextGroup: 1, groupMap: finalMap, inBehind: false };
    const source = new Emitter(ctx2).alt(root);
    const flags = (useI ? 'i' : '') + (useS ? 's' : '');
    return { source, flags, groups: finalMap, required: useI ? undefined : requiredLiterals(root) };
  } catch (e) {
    if (e instanceof PcreSyntaxError) {
      throw new Error(
        `Cannot translate PCRE pattern /${pattern.length > 80 ? `${pattern.slice(0, 80)}...` : pattern}/: ${e.message}`,
        {
          cause: e,
        },
      );
    }
    throw e;
  }
}
