import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { userRegexIssue, userRegexProblem } from '#engine/shared';
import { REGEX_ERROR_KINDS, regexErrorKind, type RegexErrorKind } from '../../../engine/shared/user-regex.ts';

describe('user regexes in the engine (Node)', () => {
  it('refuses constructs that cannot run in linear time, and invalid patterns', () => {
    expect(userRegexIssue('(a)\\1')).toEqual({ reason: 'not_linear' });
    expect(userRegexIssue('(?=admin)\\w+')).toEqual({ reason: 'not_linear' });
    expect(userRegexIssue('(?<!x)y')).toEqual({ reason: 'not_linear' });
    expect(userRegexIssue('[a-')).toMatchObject({ reason: 'regex_invalid', kind: 'unterminated_character_class' });
    expect(userRegexProblem('(a)\\1')).toMatch(/linear time/);
  });

  it('accepts linear-time patterns', () => {
    expect(userRegexIssue('^/admin(/.*)?$')).toBeNull();
    expect(userRegexIssue('(a+)+$')).toBeNull();
    expect(userRegexProblem('union|select')).toBeNull();
  });

  it('has set the backtracking fallback by the time the module is loaded', () => {
    // Compiled after the import, as every engine regex is: 2^40 backtracking steps without the
    // fallback, milliseconds with it.
    const catastrophic = new RegExp('(a+)+$');
    const started = performance.now();
    expect(catastrophic.test(`${'a'.repeat(40)}b`)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

/** A pattern (and flags) V8 refuses with each kind of syntax error, as Node 20 words it. */
const REFUSED: readonly [RegexErrorKind, string, string, string][] = [
  ['unterminated_group', '(a', '', 'Unterminated group'],
  ['unmatched_paren', 'a)', '', "Unmatched ')'"],
  ['escape_at_end', '\\', '', '\\ at end of pattern'],
  ['invalid_property_name', '\\p{Foo}', 'u', 'Invalid property name'],
  ['invalid_escape', '\\q', 'u', 'Invalid escape'],
  ['invalid_decimal_escape', '\\00', 'u', 'Invalid decimal escape'],
  ['invalid_unicode_escape', '\\u{110000}', 'u', 'Invalid Unicode escape'],
  ['nothing_to_repeat', '*a', '', 'Nothing to repeat'],
  ['lone_quantifier_brackets', ']', 'u', 'Lone quantifier brackets'],
  ['incomplete_quantifier', 'a{1', 'u', 'Incomplete quantifier'],
  ['invalid_quantifier', '(?<=a)*', '', 'Invalid quantifier'],
  ['invalid_group', '(?a)', '', 'Invalid group'],
  ['too_many_captures', '(a)'.repeat(70_000), '', 'Too many captures'],
  ['invalid_group_name', '(?<1>x)', '', 'Invalid capture group name'],
  ['duplicate_group_name', '(?<a>x)(?<a>y)', '', 'Duplicate capture group name'],
  ['invalid_named_reference', '\\k', 'u', 'Invalid named reference'],
  ['unknown_group_name', '(?<a>.)\\k<b>', '', 'Invalid named capture referenced'],
  ['invalid_character_class', '[\\d-z]', 'u', 'Invalid character class'],
  ['unterminated_character_class', '[a', '', 'Unterminated character class'],
  ['quantifier_out_of_order', 'a{2,1}', '', 'numbers out of order in {} quantifier'],
  ['invalid_class_property_name', '[\\p{Foo}]', 'u', 'Invalid property name in character class'],
  ['class_range_out_of_order', '[b-a]', '', 'Range out of order in character class'],
  ['invalid_class_set_operation', '[a--&&b]', 'v', 'Invalid set operation in character class'],
  ['invalid_class_character', '[a&&&b]', 'v', 'Invalid character in character class'],
  ['negated_class_strings', '[^\\p{RGI_Emoji}]', 'v', 'Negated character class may contain strings'],
  ['invalid_flags', 'a', 'gg', "Invalid flags supplied to RegExp constructor 'gg'"],
];

describe('V8 regex errors as codes', () => {
  it.each(REFUSED)('names %s from the error V8 really raises', (kind, pattern, flags, words) => {
    expect(userRegexIssue(pattern, flags)).toEqual({ reason: 'regex_invalid', kind, error: words });
  });

  it('names the errors no pattern raises at construction from their V8 texts', () => {
    // Flag groups (`(?i:...)`) are not in Node 20's syntax, and the size and depth limits show only
    // when a regex is compiled or run; their texts still map.
    expect(regexErrorKind('Multiple dashes in flag group')).toBe('multiple_flag_dashes');
    expect(regexErrorKind('Repeated flag in flag group')).toBe('repeated_flag');
    expect(regexErrorKind('Invalid flag group')).toBe('invalid_flag_group');
    expect(regexErrorKind('Invalid class escape')).toBe('invalid_class_escape');
    expect(regexErrorKind('Regular expression too large')).toBe('too_large');
    expect(regexErrorKind('Stack overflow')).toBe('too_deep');
  });

  it("keeps V8's words under `other` for a text it does not know", () => {
    expect(regexErrorKind('Some error a later V8 adds')).toBe('other');
    expect(REGEX_ERROR_KINDS.at(-1)).toBe('other');
    expect(new Set(REGEX_ERROR_KINDS).size).toBe(REGEX_ERROR_KINDS.length);
  });
});

describe('user regexes where there is no Node (the console bundles engine/shared)', () => {
  it('loads without process and checks only validity', async () => {
    const bundle = await build({
      entryPoints: ['engine/shared/user-regex.ts'],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'userRegex',
      logLevel: 'silent',
    });
    const browser = runInNewContext(`${bundle.outputFiles[0]?.text ?? ''}; userRegex`, {}) as {
      userRegexIssue: typeof userRegexIssue;
    };
    expect(browser.userRegexIssue('[a-')).toMatchObject({ reason: 'regex_invalid' });
    // No linear-time engine to ask: not checked here; the engine refuses it when the form is sent.
    expect(browser.userRegexIssue('(a)\\1')).toBeNull();
    expect(browser.userRegexIssue('^/admin$')).toBeNull();
  });
});
