import { detectXss as detect } from '#engine/waf/detect';
import type { OperatorDef } from '../types.ts';

/**
 * detectXSS: our tokenizer-based cross-site scripting detector (engine/waf/detect).
 *
 * Arguments: none. With `capture`, capture 0 is the input, as in ModSecurity.
 *
 * Example: `SecRule ARGS "@detectXSS" "id:941100,block"`
 */
export const detectXss: OperatorDef = {
  name: 'detectXSS',
  compile() {
    return (input, state) => {
      const matched = detect(input);
      if (matched && state.capture) state.captures[0] = input;
      return matched;
    };
  },
};
