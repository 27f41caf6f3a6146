import type { OperatorDef } from '../types.ts';
import { leadingInteger } from './numeric.ts';

/**
 * le: true when the input, read as an integer, is less than or equal to the argument.
 * Both sides are read like ModSecurity's atoi: leading integer, non-numbers are 0.
 *
 * Arguments: an integer (macros such as %{tx.threshold} are expanded by the engine first).
 *
 * Example: `SecRule &ARGS "@le 10": "id:4"`
 */
export const le: OperatorDef = {
  name: 'le',
  compile(argument) {
    const threshold = leadingInteger(argument);
    return (input) => leadingInteger(input) <= threshold;
  },
};
