import type { OperatorDef } from '../types.ts';

/**
 * strmatch: true when the argument occurs anywhere in the input (case-sensitive), the
 * Boyer-Moore-Horspool operator of ModSecurity; V8's indexOf does the same job.
 *
 * Arguments: the text to look for.
 *
 * Example: `SecRule ARGS "@strmatch WebZIP" "id:10"`
 */
export const strmatch: OperatorDef = {
  name: 'strmatch',
  compile(argument) {
    return (input) => input.includes(argument);
  },
};
