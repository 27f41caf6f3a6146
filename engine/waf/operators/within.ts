import type { OperatorDef } from '../types.ts';

/**
 * within: true when the input is found anywhere inside the argument (the reverse of @contains);
 * an empty input is found everywhere. Case-sensitive.
 *
 * Arguments: the text to search in, usually a macro list such as %{tx.allowed_methods}
 * ("GET HEAD POST OPTIONS") or "|application/json| |text/xml|" with delimited items.
 *
 * Example: `SecRule REQUEST_METHOD "!@within %{tx.allowed_methods}" "id:911100,block"`
 */
export const within: OperatorDef = {
  name: 'within',
  compile(argument) {
    return (input) => argument.includes(input);
  },
};
