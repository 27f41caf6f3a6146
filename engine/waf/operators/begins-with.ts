import type { OperatorDef } from '../types.ts';

/**
 * beginsWith: true when the input starts with the argument (case-sensitive).
 *
 * Arguments: the prefix; an empty argument always matches.
 *
 * Example: `SecRule REQUEST_LINE "@beginsWith GET /admin" "id:7"`
 */
export const beginsWith: OperatorDef = {
  name: 'beginsWith',
  compile(argument) {
    return (input) => input.startsWith(argument);
  },
};
