/**
 * The log search page's state in the URL and its filter pills: a state survives the round trip
 * through the query string, hand-edited links are read safely, pills become the engine's filter JSON
 * (and the same conditions as query text for the live tail, which the engine's parser reads back to
 * the same records), and the query box completes field names at the caret.
 */
import { describe, expect, it } from 'vitest';
import { compileFilter, parseQuery } from '#engine/search';
import {
  applyCompletion,
  completionAt,
  decodePills,
  decodeRange,
  decodeState,
  encodeState,
  parseSaved,
  pillsToFilter,
  queryWithPills,
  searchHref,
  suggestFields,
  withSaved,
  type Pill,
  type SearchState,
} from '../../../renderer/src/lib/log-search-state.ts';

const pill = (p: Partial<Pill> & Pick<Pill, 'field' | 'op'>): Pill => ({ negate: false, disabled: false, ...p });

const roundTrip = (state: SearchState): SearchState => {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(encodeState(state))) if (v) qs.set(k, v);
  return decodeState(new URLSearchParams(qs.toString()));
};

describe('the search state in the URL', () => {
  it('survives the round trip with every part set', () => {
    const state: SearchState = {
      log: 'access:site_abc',
      range: { from: 1_700_000_000_000, to: 1_700_000_360_000 },
      query: 'status:>=500 AND NOT src_ip:"10.0.0.1"',
      pills: [
        pill({ field: 'guard_status', op: 'is', value: 'OWASP', negate: true }),
        pill({ field: 'request_time', op: 'between', gte: 0.5, lte: 2, disabled: true }),
        pill({ field: 'user_agent', op: 'contains', value: 'curl & "wget"' }),
        pill({ field: 'request', op: 'matches', value: '/wp-(admin|login)' }),
        pill({ field: 'account', op: 'exists' }),
      ],
      columns: ['_timestamp', 'src_ip', 'status'],
      expanded: 'rec_123',
    };
    expect(roundTrip(state)).toEqual(state);
  });

  it('reads relative ranges and all, and falls back to the last 24 hours on nonsense', () => {
    expect(decodeRange('15m')).toEqual({ last: '15m' });
    expect(decodeRange('all')).toEqual({ all: true });
    expect(decodeRange('1y')).toEqual({ last: '1y' });
    expect(decodeRange('20~10')).toEqual({ last: '24h' });
    expect(decodeRange('3w')).toEqual({ last: '24h' });
    expect(decodeRange(null)).toEqual({ last: '24h' });
  });

  it('leaves out pills a hand-edited link got wrong, and columns that are not field names', () => {
    expect(decodePills('not json')).toEqual([]);
    expect(decodePills('{"f":"a","o":"is","v":"x"}')).toEqual([]);
    expect(
      decodePills(
        JSON.stringify([
          { f: 'status', o: 'is', v: '200' },
          { f: 'bad field', o: 'is', v: 'x' },
          { f: 'x', o: 'explode' },
          { f: 'n', o: 'between', g: 5, l: 1 },
          { f: 'n', o: 'between' },
        ]),
      ),
    ).toEqual([pill({ field: 'status', op: 'is', value: '200' })]);
    const state = decodeState(new URLSearchParams('cols=src_ip,%3Cscript%3E,src_ip,status&log=raw'));
    expect(state.columns).toEqual(['src_ip', 'status']);
    expect(state.log).toBe('raw');
    expect(state.expanded).toBeNull();
  });

  it('builds the link other pages use to open a log with filters set', () => {
    const href = searchHref({ log: 'access:site_1', range: { all: true } });
    expect(href.startsWith('/logs/search?')).toBe(true);
    const state = decodeState(new URL(href, 'http://x').searchParams);
    expect(state).toMatchObject({ log: 'access:site_1', range: { all: true }, pills: [], query: '' });
  });
});

describe('filter pills', () => {
  it('become nothing when none is enabled', () => {
    expect(pillsToFilter([])).toBeUndefined();
    expect(pillsToFilter([pill({ field: 'a', op: 'exists', disabled: true })])).toBeUndefined();
  });

  it('become one term, negated when asked, or an AND of the enabled ones', () => {
    expect(pillsToFilter([pill({ field: 'status', op: 'is', value: '403', negate: true })])).toEqual({
      op: 'not',
      filter: { op: 'eq', field: 'status', value: '403' },
    });
    expect(
      pillsToFilter([
        pill({ field: 'status', op: 'is', value: '403' }),
        pill({ field: 'x', op: 'exists', disabled: true }),
        pill({ field: 'request_time', op: 'between', gte: 0.5 }),
        pill({ field: 'ua', op: 'contains', value: 'curl' }),
        pill({ field: 'request', op: 'matches', value: '^GET' }),
      ]),
    ).toEqual({
      op: 'and',
      filters: [
        { op: 'eq', field: 'status', value: '403' },
        { op: 'range', field: 'request_time', gte: 0.5 },
        { op: 'contains', field: 'ua', value: 'curl' },
        { op: 'regex', field: 'request', pattern: '^GET' },
      ],
    });
  });

  it('as query text select the same records as the filter JSON (the live tail takes only a query)', () => {
    const pills = [
      pill({ field: 'status', op: 'is', value: '403', negate: true }),
      pill({ field: 'user_agent', op: 'contains', value: 'Go http/1.1 "x"' }),
      pill({ field: 'user_agent', op: 'contains', value: 'curl' }),
      pill({ field: 'request_time', op: 'between', gte: 0.5, lte: 2 }),
      pill({ field: 'bytes', op: 'between', lte: 100 }),
      pill({ field: 'request', op: 'matches', value: '/wp-(admin|login)' }),
      pill({ field: 'account', op: 'exists' }),
      pill({ field: 'ignored', op: 'exists', disabled: true }),
    ];
    const text = queryWithPills('src_ip:10.0.0.1 OR src_ip:10.0.0.2', pills);
    const viaText = compileFilter(parseQuery(text));
    const viaJson = compileFilter({
      op: 'and',
      filters: [parseQuery('src_ip:10.0.0.1 OR src_ip:10.0.0.2')!, pillsToFilter(pills)!],
    });
    const base = {
      src_ip: '10.0.0.1',
      status: 200,
      user_agent: 'curl Go http/1.1 "x"',
      request_time: 1,
      bytes: 50,
      request: 'GET /wp-login HTTP/1.1',
      account: 'ann',
    };
    const records = [
      base,
      { ...base, status: 403 },
      { ...base, src_ip: '10.0.0.3' },
      { ...base, user_agent: 'curl' },
      { ...base, request_time: 3 },
      { ...base, bytes: 101 },
      { ...base, request: 'GET / HTTP/1.1' },
      { ...base, account: undefined },
      { ...base, src_ip: '10.0.0.2', ignored: 'x' },
    ];
    const a = records.map((r) => viaText.matches(r));
    expect(a).toEqual(records.map((r) => viaJson.matches(r)));
    expect(a).toEqual([true, false, false, false, false, false, false, false, true]);
    expect(queryWithPills('', [])).toBe('');
  });
});

describe('the query box', () => {
  it('completes the field name being typed at the caret', () => {
    expect(completionAt('src', 3)).toEqual({ start: 0, prefix: 'src' });
    expect(completionAt('status:200 AND gua', 18)).toEqual({ start: 15, prefix: 'gua' });
    expect(completionAt('(-gua', 5)).toEqual({ start: 2, prefix: 'gua' });
    expect(completionAt('status:20', 9)).toBeNull();
    expect(completionAt('a AND', 5)).toBeNull();
    expect(completionAt('x ', 2)).toBeNull();
  });

  it('offers fields that start with the prefix first, then those that hold it', () => {
    expect(suggestFields(['src_ip', 'status', 'ip_city', 'site_id', 'status'], 'ip')).toEqual(['ip_city', 'src_ip']);
    expect(suggestFields(['status'], 'status')).toEqual([]);
  });

  it('replaces the word at the caret with the field and a colon', () => {
    expect(applyCompletion('status:200 AND gua OR x', 18, 'guard_status')).toEqual({
      query: 'status:200 AND guard_status: OR x',
      caret: 28,
    });
  });
});

describe('saved searches', () => {
  it('are read safely and replaced by name', () => {
    expect(parseSaved('{')).toEqual([]);
    expect(parseSaved('[{"name":1}]')).toEqual([]);
    const list = withSaved(parseSaved('[{"name":"b","search":"log=x"}]'), { name: 'a', search: 'log=y' });
    expect(withSaved(list, { name: 'b', search: 'log=z' })).toEqual([
      { name: 'a', search: 'log=y' },
      { name: 'b', search: 'log=z' },
    ]);
  });
});
