/**
 * Detection and false-positive rates of the detectors on the generated test set (grammar-corpus.ts).
 * The floors are what the detectors achieve today; a change that loses detections or adds a false
 * positive fails here, and the summary line is printed for the commit message.
 */
import { describe, expect, it } from 'vitest';
import { detectSqli, detectXss } from '../../../../engine/waf/detect/index.ts';
import { benignSamples, sqlAttacks, xssAttacks, type Sample } from './grammar-corpus.ts';

interface Rate {
  total: number;
  hits: number;
  misses: string[];
}

function rates(samples: readonly Sample[], detect: (v: string) => boolean): Map<string, Rate> {
  const by = new Map<string, Rate>();
  for (const s of samples) {
    const r = by.get(s.family) ?? { total: 0, hits: 0, misses: [] };
    if (detect(s.value)) r.hits++;
    else r.misses.push(s.value);
    r.total++;
    by.set(s.family, r);
  }
  return by;
}

function overall(by: Map<string, Rate>): { total: number; hits: number } {
  let total = 0;
  let hits = 0;
  for (const r of by.values()) {
    total += r.total;
    hits += r.hits;
  }
  return { total, hits };
}

const pct = (n: number, d: number): string => ((100 * n) / d).toFixed(1);
const sqli = (v: string): boolean => detectSqli(v).matched;
const either = (v: string): boolean => sqli(v) || detectXss(v);

/** Detection floors (share of the generated attacks) and the false positives allowed (none). */
const SQL_DETECTION_FLOOR = 0.99;
const XSS_DETECTION_FLOOR = 0.99;

describe('detectors on the generated test set', () => {
  const sql = rates(sqlAttacks(), sqli);
  const xss = rates(xssAttacks(), detectXss);
  const benign = rates(benignSamples(), either);

  it('prints the detection and false-positive rates', () => {
    const s = overall(sql);
    const x = overall(xss);
    const b = overall(benign);
    const families = (by: Map<string, Rate>): string =>
      [...by].map(([f, r]) => `${f}=${pct(r.hits, r.total)}%`).join(' ');
    console.log(
      `grammar-detect summary: sqli ${s.hits}/${s.total} (${pct(s.hits, s.total)}%), xss ${x.hits}/${x.total} ` +
        `(${pct(x.hits, x.total)}%), benign flagged ${b.hits}/${b.total} (${pct(b.hits, b.total)}%)`,
    );
    console.log(`grammar-detect sqli families: ${families(sql)}`);
    console.log(`grammar-detect xss families: ${families(xss)}`);
    expect(s.total).toBeGreaterThan(500);
    expect(x.total).toBeGreaterThan(500);
  });

  it(`detects at least ${SQL_DETECTION_FLOOR * 100} % of the generated SQL injections`, () => {
    const s = overall(sql);
    const missed = [...sql.values()].flatMap((r) => r.misses);
    expect(s.hits / s.total, missed.slice(0, 40).join('\n')).toBeGreaterThanOrEqual(SQL_DETECTION_FLOOR);
  });

  it(`detects at least ${XSS_DETECTION_FLOOR * 100} % of the generated XSS vectors`, () => {
    const x = overall(xss);
    const missed = [...xss.values()].flatMap((r) => r.misses);
    expect(x.hits / x.total, missed.slice(0, 40).join('\n')).toBeGreaterThanOrEqual(XSS_DETECTION_FLOOR);
  });

  it('flags none of the generated benign values', () => {
    const flagged = benignSamples()
      .filter((s) => either(s.value))
      .map((s) => `${s.family}: ${s.value}`);
    expect(flagged).toEqual([]);
  });
});
