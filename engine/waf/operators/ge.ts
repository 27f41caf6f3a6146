import type { OperatorDef } from '../types.ts';
import { leadingInteger } from './numeric.ts';

/**
 * ge: true when the input, read as an integer, is greater than or equal to the argument.
 * Both sides are read like ModSecurity's atoi: leading integer, non-numbers are 0.
 *
 * Arguments: an integer (macros such as %{tx.threshold} are expanded by the engine first).
 *
 * Example: `SecRule TX:ANOMALY_SCORE "@ge 5" "id:4"`
 */
export const ge: OperatorDef = {
  name: 'ge',
  compile(argument) {
    const threshold = leadingInteger(argument);
    return (input) => leadingInteger(input) >= threshold;
  },
};
