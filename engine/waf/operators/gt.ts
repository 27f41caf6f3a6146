import type { OperatorDef } from '../types.ts';
import { leadingInteger } from './numeric.ts';

/**
 * gt: true when the input, read as an integer, is greater than the argument.
 * Both sides are read like ModSecurity's atoi: leading integer, non-numbers are 0.
 *
 * Arguments: an integer (macros such as %{tx.threshold} are expanded by the engine first).
 *
 * Example: `SecRule &ARGS "@gt 255": "id:4"`
 */
export const gt: OperatorDef = {
  name: 'gt',
  compile(argument) {
    const threshold = leadingInteger(argument);
    return (input) => leadingInteger(input) > threshold;
  },
};
