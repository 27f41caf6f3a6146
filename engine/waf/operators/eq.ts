import type { OperatorDef } from '../types.ts';
import { leadingInteger } from './numeric.ts';

/**
 * eq: true when the input, read as an integer, is equal to the argument.
 * Both sides are read like ModSecurity's atoi: leading integer, non-numbers are 0.
 *
 * Arguments: an integer (macros such as %{tx.threshold} are expanded by the engine first).
 *
 * Example: `SecRule REQUEST_HEADERS:Content-Length "@eq 0" "id:4"`
 */
export const eq: OperatorDef = {
  name: 'eq',
  compile(argument) {
    const threshold = leadingInteger(argument);
    return (input) => leadingInteger(input) === threshold;
  },
};
