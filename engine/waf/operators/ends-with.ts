import type { OperatorDef } from '../types.ts';

/**
 * endsWith: true when the input ends with the argument (case-sensitive).
 *
 * Arguments: the suffix; an empty argument always matches.
 *
 * Example: `SecRule REQUEST_HEADERS:Referer "@endsWith %{request_headers.host}" "id:8"`
 */
export const endsWith: OperatorDef = {
  name: 'endsWith',
  compile(argument) {
    return (input) => input.endsWith(argument);
  },
};
