import { detectSqli as detect } from '#engine/waf/detect';
import type { OperatorDef } from '../types.ts';

/**
 * detectSQLi: our tokenizer-based SQL injection detector (engine/waf/detect).
 *
 * Arguments: none. With `capture`, capture 0 is the matching fingerprint (ModSecurity logs
 * libinjection's fingerprint the same way).
 *
 * Example: `SecRule ARGS "@detectSQLi" "id:942100,capture,block"`
 */
export const detectSqli: OperatorDef = {
  name: 'detectSQLi',
  compile() {
    return (input, state) => {
      const result = detect(input);
      if (result.matched && state.capture) state.captures[0] = result.fingerprint;
      return result.matched;
    };
  },
};
