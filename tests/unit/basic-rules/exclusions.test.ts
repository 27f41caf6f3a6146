/**
 * What exclusions do to stored access records: which rules fired on what, whether a record would
 * have passed, and the preview's counts.
 */
import { describe, expect, it } from 'vitest';
import { clearedBy, firedOn, previewExclusion, suggestExclusions, type ExclusionSpec } from '#engine/basic-rules';

const record = (request: string, targets: string, action = 'block'): Record<string, unknown> => ({
  request,
  action,
  waf_triggered_rules: [...new Set(targets.split('\n').map((l) => l.split(' ')[0]))].join(','),
  waf_triggered_targets: targets,
});

async function* rows(list: Record<string, unknown>[]): AsyncGenerator<Record<string, unknown>> {
  for (const r of list) yield await Promise.resolve(r);
}

describe('firedOn', () => {
  it('reads rule and variable per line, and falls back to the rule ids of older records', () => {
    expect(firedOn({ waf_triggered_targets: '942100 ARGS:q\n941100 REQUEST_HEADERS:Referer' })).toEqual([
      { ruleId: 942100, variable: 'ARGS:q' },
      { ruleId: 941100, variable: 'REQUEST_HEADERS:Referer' },
    ]);
    expect(firedOn({ waf_triggered_rules: '942100,941100', waf_triggered_targets: '' })).toEqual([
      { ruleId: 942100, variable: null },
      { ruleId: 941100, variable: null },
    ]);
    expect(firedOn({ waf_triggered_rules: '' })).toEqual([]);
  });
});

describe('clearedBy', () => {
  const onQ: ExclusionSpec = { ruleId: 942100, target: 'ARGS:q', path: '/search' };

  it('clears a record only when every rule that fired is excluded there', () => {
    expect(clearedBy([onQ], record('GET /search?q=1 HTTP/1.1', '942100 ARGS:q'))).toEqual({
      fired: true,
      cleared: true,
    });
    expect(clearedBy([onQ], record('GET /search?q=1 HTTP/1.1', '942100 ARGS:q\n941100 ARGS:q')).cleared).toBe(false);
    expect(clearedBy([onQ], record('GET /other?q=1 HTTP/1.1', '942100 ARGS:q')).cleared).toBe(false);
    expect(clearedBy([onQ], record('GET /search?Q=1 HTTP/1.1', '942100 ARGS:Q')).cleared).toBe(true);
    expect(clearedBy([onQ], record('GET /search HTTP/1.1', '942100 ARGS_NAMES:q')).cleared).toBe(false);
  });

  it('a record that does not say the variable is cleared only by a whole-rule exclusion', () => {
    const old = { request: 'GET /search?q=1 HTTP/1.1', waf_triggered_rules: '942100' };
    expect(clearedBy([onQ], old).cleared).toBe(false);
    expect(clearedBy([{ ruleId: 942100, target: '', path: '/search' }], old).cleared).toBe(true);
  });

  it('a bare collection covers its every entry; a prefix path covers what starts with it', () => {
    const api: ExclusionSpec = { ruleId: 942100, target: 'ARGS', path: '/api/*' };
    expect(clearedBy([api], record('POST /api/v1/x HTTP/1.1', '942100 ARGS:filter')).cleared).toBe(true);
    expect(clearedBy([api], record('POST /apix HTTP/1.1', '942100 ARGS:filter')).cleared).toBe(false);
    expect(clearedBy([api], { request: 'GET /api/x HTTP/1.1' })).toEqual({ fired: false, cleared: false });
  });
});

describe('previewExclusion', () => {
  it('counts the records the exclusion reaches and those it would have let through, once', async () => {
    const stored = [
      record('GET /search?q=1 HTTP/1.1', '942100 ARGS:q'),
      record('GET /search?q=1 HTTP/1.1', '942100 ARGS:q', 'pass'),
      record('GET /search?q=1&t=2 HTTP/1.1', '942100 ARGS:q\n942100 ARGS:t'),
      record('GET /search?t=2 HTTP/1.1', '942100 ARGS:t'),
      record('GET /elsewhere?q=1 HTTP/1.1', '942100 ARGS:q'),
      // Cleared with the help of the existing exclusion of 941100.
      record('GET /search?q=1 HTTP/1.1', '942100 ARGS:q\n941100 REQUEST_HEADERS:Referer'),
    ];
    const existing: ExclusionSpec[] = [{ ruleId: 941100, target: '', path: '' }];
    expect(
      await previewExclusion({ ruleId: 942100, target: 'ARGS:q', path: '/search' }, existing, rows(stored)),
    ).toEqual({ examined: 6, matched: 4, cleared: 3, clearedBlocked: 2 });
  });
});

describe('suggestExclusions', () => {
  const firing = (i: number, request: string, targets: string, clients: number, probed: boolean) => ({
    ...record(request, targets),
    src_ip: `198.51.100.${i % clients}`,
    fingerprint: probed ? `dev${i}` : '',
    _timestamp: 1_000 + i,
  });

  it('suggests what fired on many requests from several clients, not a lone attacker, nor what is excluded', async () => {
    const stored = [
      // A search box: 30 requests from 10 browsers that passed the probe.
      ...Array.from({ length: 30 }, (_, i) => firing(i, `GET /search?q=${i} HTTP/1.1`, '942100 ARGS:q', 10, true)),
      // One client, 50 requests: an attack, however many.
      ...Array.from({ length: 50 }, (_, i) => firing(i, 'GET /login?u=x HTTP/1.1', '942100 ARGS:u', 1, false)),
      // Many clients, but already excluded.
      ...Array.from({ length: 40 }, (_, i) => firing(i, 'GET /api/x HTTP/1.1', '941100 ARGS:html', 20, false)),
    ];
    const existing: ExclusionSpec[] = [{ ruleId: 941100, target: 'ARGS', path: '/api/*' }];
    const { examined, items } = await suggestExclusions(existing, rows(stored));
    expect(examined).toBe(120);
    expect(items).toEqual([
      {
        ruleId: 942100,
        target: 'ARGS:q',
        path: '/search',
        requests: 30,
        clients: 10,
        fromProbedBrowsers: 30,
        lastSeen: 1_029,
        example: 'GET /search?q=29 HTTP/1.1',
      },
    ]);
  });
});
