import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { translatePcre } from '#engine/waf/regex';
import { CRS3_RULES, findCrs4Rules, rxPatterns } from './crs-patterns.ts';

const RX_OPTIONS = { dotall: true, dollarEndOnly: true };

function failures(dir: string): string[] {
  const out: string[] = [];
  for (const p of rxPatterns(dir)) {
    try {
      const t = translatePcre(p.pattern, RX_OPTIONS);
      new RegExp(t.source, t.flags);
      if (t.flags.includes('u')) out.push(`${p.file}:${p.line}: uses the u flag`);
    } catch (e) {
      out.push(`${p.file}:${p.line}: ${(e as Error).message}`);
    }
  }
  return out;
}

describe('CRS @rx patterns', () => {
  it.skipIf(!existsSync(CRS3_RULES))('every CRS 3.3.4 pattern translates and compiles as a JavaScript RegExp', () => {
    const patterns = rxPatterns(CRS3_RULES);
    expect(patterns.length).toBeGreaterThan(250);
    expect(failures(CRS3_RULES)).toEqual([]);
  });

  const v4 = findCrs4Rules();
  it.skipIf(v4 === undefined)(
    'every CRS v4 pattern (coraza-coreruleset in the Go module cache) translates and compiles',
    () => {
      const dir = v4 as string;
      expect(rxPatterns(dir).length).toBeGreaterThan(250);
      expect(failures(dir)).toEqual([]);
    },
  );

  it.skipIf(!existsSync(CRS3_RULES))('CRS 3.3.4 patterns behave on known attack samples', () => {
    const byId = (fragment: string): RegExp => {
      const p = rxPatterns(CRS3_RULES).find((x) => x.pattern.includes(fragment));
      if (!p) throw new Error(`no pattern with ${fragment}`);
      const t = translatePcre(p.pattern, RX_OPTIONS);
      return new RegExp(t.source, t.flags);
    };
    // 920470 Content-Type syntax (possessive quantifiers): a valid header passes, junk does not.
    const contentType = byId('charset\\s*+=');
    expect(contentType.test('application/json; charset=utf-8')).toBe(true);
    expect(contentType.test('application/json; charset=utf-8\nX')).toBe(false);
    // 913 scanners (case-insensitive from a leading (?i)).
    const spammer = byId(' spammer ');
    expect(spammer.test('my SPAMMER bot')).toBe(true);
  });
});
