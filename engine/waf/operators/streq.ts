import type { OperatorDef } from '../types.ts';

/**
 * streq: true when the input equals the argument exactly (case-sensitive).
 *
 * Arguments: the string to compare with.
 *
 * Example: `SecRule REQUEST_METHOD "@streq POST" "id:9"`
 */
export const streq: OperatorDef = {
  name: 'streq',
  compile(argument) {
    return (input) => input === argument;
  },
};
