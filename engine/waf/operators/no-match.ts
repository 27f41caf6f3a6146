import type { OperatorDef } from '../types.ts';

/**
 * noMatch: always false.
 *
 * Arguments: none.
 *
 * Example: `SecRule REMOTE_ADDR "@noMatch" "id:12"`
 */
export const noMatch: OperatorDef = {
  name: 'noMatch',
  compile() {
    return () => false;
  },
};
