import type { OperatorDef } from '../types.ts';
import { PhraseMatcher } from './aho-corasick.ts';
import { parsePhraseList } from './phrase-list.ts';

/**
 * pm: case-insensitive (ASCII) match of any of a list of phrases anywhere in the input, with an
 * Aho-Corasick automaton built once.
 *
 * Arguments: phrases separated by whitespace; `|hex|` bytes and `\:` `\;` `\\` `\"` escapes as in
 * ModSecurity. With `capture`, capture 0 is the phrase found.
 *
 * Example: `SecRule REQUEST_HEADERS:User-Agent "@pm nikto sqlmap" "id:2,deny"`
 */
export const pm: OperatorDef = {
  name: 'pm',
  compile(argument) {
    return phraseOperator(parsePhraseList(argument));
  },
  // The phrases themselves: the engine's scan finds them as the matcher below would.
  required: (argument) => parsePhraseList(argument),
};

export function phraseOperator(phrases: readonly string[]): ReturnType<OperatorDef['compile']> {
  const matcher = new PhraseMatcher(phrases);
  return (input, state) => {
    const found = matcher.search(input);
    if (found < 0) return false;
    if (state.capture) state.captures[0] = phrases[found];
    return true;
  };
}
