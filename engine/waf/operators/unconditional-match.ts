import type { OperatorDef } from '../types.ts';

/**
 * unconditionalMatch: always true.
 *
 * Arguments: none.
 *
 * Example: `SecRule REMOTE_ADDR "@unconditionalMatch" "id:11,pass,nolog"`
 */
export const unconditionalMatch: OperatorDef = {
  name: 'unconditionalMatch',
  compile() {
    return () => true;
  },
};
