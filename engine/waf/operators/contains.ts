import type { OperatorDef } from '../types.ts';

/**
 * contains: true when the argument occurs anywhere in the input (case-sensitive). With `capture`,
 * capture 0 is the argument.
 *
 * Arguments: the text to look for; an empty argument always matches.
 *
 * Example: `SecRule REQUEST_LINE "@contains /etc/passwd" "id:5"`
 */
export const contains: OperatorDef = {
  name: 'contains',
  compile(argument) {
    return (input, state) => {
      if (!input.includes(argument)) return false;
      if (state.capture) state.captures[0] = argument;
      return true;
    };
  },
};
