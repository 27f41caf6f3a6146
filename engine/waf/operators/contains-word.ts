import type { OperatorDef } from '../types.ts';

/**
 * containsWord: true when the argument occurs in the input as a whole word, that is not preceded
 * or followed by a word byte (ASCII letter, digit or underscore). Case-sensitive.
 *
 * Arguments: the word; an empty argument always matches.
 *
 * Example: `SecRule ARGS "@containsWord select" "id:6"` matches "1 select 2", not "selected".
 */
export const containsWord: OperatorDef = {
  name: 'containsWord',
  compile(argument) {
    return (input) => {
      if (argument === '') return true;
      for (let at = input.indexOf(argument); at >= 0; at = input.indexOf(argument, at + 1)) {
        const end = at + argument.length;
        if (
          (at === 0 || !isWord(input.charCodeAt(at - 1))) &&
          (end === input.length || !isWord(input.charCodeAt(end)))
        ) {
          return true;
        }
      }
      return false;
    };
  },
};

function isWord(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}
