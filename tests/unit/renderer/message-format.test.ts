import { describe, expect, it } from 'vitest';
import { formatMessage } from '../../../renderer/src/lib/message-format.ts';
import { en } from '../../../renderer/i18n/en.ts';
import { zhCN } from '../../../renderer/i18n/zh-CN.ts';

describe('console messages', () => {
  const sites = '{count, plural, one {# site} other {# sites}}';

  it('says "1 site" and "2 sites" by the English plural rule', () => {
    expect(formatMessage(sites, { count: 1 }, 'en')).toBe('1 site');
    expect(formatMessage(sites, { count: 2 }, 'en')).toBe('2 sites');
    expect(formatMessage(sites, { count: 0 }, 'en')).toBe('0 sites');
  });

  it('prefers an exact branch and keeps the text around the block', () => {
    const text = 'Shown: {count, plural, =0 {none} one {# rule of {total}} other {# rules of {total}}}.';
    expect(formatMessage(text, { count: 0, total: 5 }, 'en')).toBe('Shown: none.');
    expect(formatMessage(text, { count: 1, total: 5 }, 'en')).toBe('Shown: 1 rule of 5.');
    expect(formatMessage(text, { count: 3, total: 5 }, 'en')).toBe('Shown: 3 rules of 5.');
  });

  it('uses the single Chinese form for every number', () => {
    expect(formatMessage('{count, plural, other {# 个站点}}', { count: 1 }, 'zh-CN')).toBe('1 个站点');
    expect(formatMessage('{count} 个站点', { count: 1 }, 'zh-CN')).toBe('1 个站点');
  });

  it('leaves an unknown parameter visible rather than inventing a value', () => {
    expect(formatMessage('{field} is required.', {}, 'en')).toBe('{field} is required.');
  });

  it('gives every English count text a singular form', () => {
    const counts = Object.entries(en).filter(([, text]) => /\{count\}/.test(text.replace(/\{count, plural,.*\}/s, '')));
    const withoutPlural = counts.filter(([key]) => !key.startsWith('password.rule.'));
    expect(withoutPlural.map(([key]) => key)).toEqual([]);
    for (const [key, text] of Object.entries(en)) {
      if (!text.includes(', plural,')) continue;
      expect(formatMessage(text, { count: 1 }, 'en'), key).not.toMatch(/\b1 \w+s\b/);
      expect((zhCN as Record<string, string>)[key], key).toBeDefined();
    }
  });
});
