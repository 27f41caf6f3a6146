import type { OperatorDef } from '../types.ts';
import { leadingInteger } from './numeric.ts';

/**
 * lt: true when the input, read as an integer, is less than the argument.
 * Both sides are read like ModSecurity's atoi: leading integer, non-numbers are 0.
 *
 * Arguments: an integer (macros such as %{tx.threshold} are expanded by the engine first).
 *
 * Example: `SecRule TX:DETECTION_PARANOIA_LEVEL "@lt 2" "id:4"`
 */
export const lt: OperatorDef = {
  name: 'lt',
  compile(argument) {
    const threshold = leadingInteger(argument);
    return (input) => leadingInteger(input) < threshold;
  },
};
