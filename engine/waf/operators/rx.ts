import { translatePcre, type TranslatedRegex } from '#engine/waf/regex';
import type { OperatorDef } from '../types.ts';

/**
 * rx: PCRE regular expression match, compiled as ModSecurity 2 compiles it (PCRE_DOTALL and
 * PCRE_DOLLAR_ENDONLY: `.` matches newlines, `$` only the very end) and run byte-wise.
 *
 * Arguments: a PCRE pattern; an empty pattern matches everything (ModSecurity uses `.*`).
 * With `capture`, fills captures 0 (whole match) to 9 (groups), undefined for groups that did
 * not take part, which the engine copies to TX.0 to TX.9.
 *
 * Example: `SecRule ARGS "@rx (?i)union\s+select" "id:1,capture,deny"`
 */
export const rx: OperatorDef = {
  name: 'rx',
  compile(argument) {
    const translated = translate(argument);
    const re = new RegExp(translated.source, translated.flags);
    const groups = translated.groups;
    const identity = groups.every((g, n) => g === n);
    return (input, state) => {
      if (!state.capture) return re.test(input);
      const m = re.exec(input);
      if (m === null) return false;
      const captures = state.captures;
      for (let n = 0; n < 10; n++) {
        captures[n] = n < groups.length ? m[identity ? n : (groups[n] as number)] : undefined;
      }
      return true;
    };
  },
  required(argument) {
    return translate(argument).required;
  },
};

// The engine asks for `required` right after `compile` with the same argument: the last
// translation is kept so a pattern is translated once.
let lastArgument: string | undefined;
let lastTranslation: TranslatedRegex | undefined;

function translate(argument: string): TranslatedRegex {
  if (argument === lastArgument && lastTranslation !== undefined) return lastTranslation;
  const translated = translatePcre(argument === '' ? '.*' : argument, { dotall: true, dollarEndOnly: true });
  lastArgument = argument;
  lastTranslation = translated;
  return translated;
}
