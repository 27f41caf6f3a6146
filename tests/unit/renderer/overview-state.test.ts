/**
 * The Security Overview's state and links: the URL survives a round trip and hand-edited values are
 * read safely, counters compare with the previous period, and each chart element's link finds the
 * records it counted (the path ranking's pattern is tried against request lines).
 */
import { describe, expect, it } from 'vitest';
import {
  decodeRange,
  decodeState,
  deltaOf,
  encodeState,
  overviewHref,
  spanOf,
  targetFilter,
  targetHref,
} from '../../../renderer/src/components/overview/overview-state.ts';

describe('overview state in the URL', () => {
  it('round-trips a custom range, a site and a refresh interval, leaving defaults out', () => {
    const state = { range: { from: 1_000, to: 61_000 }, site: 'site_1', refresh: '1m' as const };
    const query = new URLSearchParams(
      Object.entries(encodeState(state)).filter((e): e is [string, string] => e[1] !== undefined),
    );
    expect(decodeState(query)).toEqual(state);
    expect(overviewHref({ range: { last: '24h' }, site: '', refresh: 'off' })).toBe('/overview');
  });

  it('reads hand-edited ranges safely: backwards, over 400 days or garbage give the default', () => {
    expect(decodeRange('5000~1000')).toEqual({ last: '24h' });
    expect(decodeRange(`0~${401 * 86_400_000}`)).toEqual({ last: '24h' });
    expect(decodeRange('<script>')).toEqual({ last: '24h' });
    expect(decodeRange('7d')).toEqual({ last: '7d' });
    expect(decodeState(new URLSearchParams('refresh=1s')).refresh).toBe('off');
  });

  it('a quick range ends now and slides with it', () => {
    expect(spanOf({ last: '1h' }, 10_000_000)).toEqual({ from: 10_000_000 - 3_600_000, to: 10_000_000 });
  });
});

describe('the previous period', () => {
  it('says up, down or flat, with no percent when there was nothing before', () => {
    expect(deltaOf(150, 100)).toEqual({ direction: 'up', percent: 50 });
    expect(deltaOf(50, 100)).toEqual({ direction: 'down', percent: 50 });
    expect(deltaOf(7, 7)).toEqual({ direction: 'flat', percent: 0 });
    expect(deltaOf(3, 0)).toEqual({ direction: 'up', percent: null });
  });
});

/** The regular expression of a target's first pill. */
const patternOf = (filter: { pills: unknown[] }): RegExp =>
  new RegExp(String((filter.pills[0] as { value?: string }).value));

describe('links into the log search', () => {
  it('a path ranking row finds the requests of that path and no longer one', () => {
    const filter = targetFilter({ kind: 'ranking', field: 'path', value: '/cart' });
    expect(filter.log).toBe('access');
    const pattern = patternOf(filter);
    expect(pattern.test('GET /cart HTTP/1.1')).toBe(true);
    expect(pattern.test('POST /cart?step=2 HTTP/1.1')).toBe(true);
    expect(pattern.test('GET /cart/items HTTP/1.1')).toBe(false);
    expect(pattern.test('GET /cartx HTTP/1.1')).toBe(false);
  });

  it('a path with regex characters is matched literally', () => {
    const pattern = patternOf(targetFilter({ kind: 'ranking', field: 'path', value: '/a.b(1)' }));
    expect(pattern.test('GET /a.b(1) HTTP/1.1')).toBe(true);
    expect(pattern.test('GET /axb(1) HTTP/1.1')).toBe(false);
  });

  it('counters open the log they count: probe downloads the probe log, bots the detection log', () => {
    expect(targetFilter({ kind: 'probeDownloads' }).log).toBe('probe');
    expect(targetFilter({ kind: 'bots' }).log).toBe('detection');
    const href = targetHref({ kind: 'verdict', value: 'BOT' }, 'site_1', { from: 1_000, to: 2_000 });
    expect(href).toContain('access%3Asite_1');
    expect(decodeURIComponent(href)).toContain('guard_status');
  });
});
