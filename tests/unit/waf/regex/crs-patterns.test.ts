import { describe, expect, it } from 'vitest';
import { translatePcre } from '#engine/waf/regex';
import { CRS4, missing } from '../../../support/crs-dirs.ts';
import { CRS3_RULES, rxPatterns } from './crs-patterns.ts';

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
  it('every CRS 3.3.4 pattern translates and compiles as a JavaScript RegExp', ({ skip }) => {
    if (missing.crs3) skip(missing.crs3);
    const patterns = rxPatterns(CRS3_RULES);
    expect(patterns.length).toBeGreaterThan(250);
    expect(failures(CRS3_RULES)).toEqual([]);
  });

  it('every CRS v4 pattern (RAMPART_CRS_V4_RULES) translates and compiles', ({ skip }) => {
    if (!CRS4) return skip(missing.crs4);
    expect(rxPatterns(CRS4.rules).length).toBeGreaterThan(250);
    expect(failures(CRS4.rules)).toEqual([]);
  });

  it('CRS 3.3.4 patterns behave on known attack samples', ({ skip }) => {
    if (missing.crs3) skip(missing.crs3);
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
