import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { userRegexIssue, userRegexProblem } from '#engine/shared';

describe('user regexes in the engine (Node)', () => {
  it('refuses constructs that cannot run in linear time, and invalid patterns', () => {
    expect(userRegexIssue('(a)\\1')).toEqual({ reason: 'not_linear' });
    expect(userRegexIssue('(?=admin)\\w+')).toEqual({ reason: 'not_linear' });
    expect(userRegexIssue('(?<!x)y')).toEqual({ reason: 'not_linear' });
    expect(userRegexIssue('[a-')).toMatchObject({ reason: 'regex_invalid' });
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
