import { describe, expect, it } from 'vitest';
import { EventEngine, type EventDefinition, type Firing } from '#engine/events';
import {
  ACCESS_LOG,
  ADMIN,
  APP_LOG,
  at,
  average,
  cep,
  combined,
  count,
  distinct,
  hit,
  LOGIN_POST,
  NOT_FOUND,
  simple,
  source,
  when,
} from './fixtures.ts';

function engineWith(events: EventDefinition[], options?: ConstructorParameters<typeof EventEngine>[0]): EventEngine {
  const engine = new EventEngine(options);
  const report = engine.configure(events, source);
  expect(report.skipped).toEqual([]);
  return engine;
}

describe('EventEngine: the hot path', () => {
  it('returns one shared frozen empty array when nothing fires, for read and unread logs alike', () => {
    const engine = engineWith([NOT_FOUND]);
    const none = engine.observe(ACCESS_LOG, hit('1.1.1.1'), at(0));
    expect(none).toHaveLength(0);
    expect(Object.isFrozen(none)).toBe(true);
    expect(engine.observe('custom:unread', hit('1.1.1.1'), at(0))).toBe(none);
    expect(engine.observe(ACCESS_LOG, hit('1.1.1.2'), at(1))).toBe(none);
  });

  it('gives each firing its event, log, object, key, engine time, meta and record', () => {
    const engine = engineWith([NOT_FOUND, count('many', 2, 60, { triggerEvent: 'not-found' })]);
    const record = hit('10.0.0.1', { status: 404 });
    engine.observe(ACCESS_LOG, record, at(0));
    const firings = engine.observe(ACCESS_LOG, record, at(1));
    expect(firings).toEqual<Firing[]>([
      {
        eventId: 'not-found',
        eventName: 'not-found',
        kind: 'simple',
        log: ACCESS_LOG,
        object: null,
        key: null,
        at: at(1),
        meta: { status: 404 },
        record,
      },
      {
        eventId: 'many',
        eventName: 'many',
        kind: 'count',
        log: ACCESS_LOG,
        object: 'ip',
        key: '10.0.0.1',
        at: at(1),
        meta: { key: '10.0.0.1', window: 60, count: 2, comparator: '>=', threshold: 2 },
        record,
      },
    ]);
  });

  it('puts what made a distinct, average or CEP event fire in its meta', () => {
    const engine = engineWith([
      { ...NOT_FOUND, enabled: false },
      { ...LOGIN_POST, enabled: false },
      distinct('paths', 'request', 2, 60),
      average('slow', 'request_time', '>', 1, 60),
      cep(
        'probe',
        'loose',
        [
          ['not-found', 1, 2],
          ['login-post', 1, 1],
        ],
        60,
      ),
    ]);
    engine.observe(ACCESS_LOG, hit('ip', { status: 404, request: 'GET /a HTTP/1.1', request_time: 0.5 }), at(0));
    const firings = engine.observe(ACCESS_LOG, hit('ip', { request: 'POST /login HTTP/1.1', request_time: 3 }), at(1));
    expect(firings.map((f) => [f.eventId, f.meta])).toEqual([
      [
        'paths',
        { key: 'ip', window: 60, distinct: 2, field: 'request', approximate: 0, comparator: '>=', threshold: 2 },
      ],
      [
        'slow',
        { key: 'ip', window: 60, average: 1.75, records: 2, field: 'request_time', comparator: '>', threshold: 1 },
      ],
      ['probe', { key: 'ip', window: 60, steps: 2, matched: 2, first: at(0) }],
    ]);
  });

  it('never throws on odd records, and keeps working after them', () => {
    const engine = engineWith([
      NOT_FOUND,
      simple('num', 'a', [when('a', 'request_time', '>', 1)]),
      simple('rx', 'a', [when('a', 'user_agent', 'regex', '(?:x+x+)+y')]),
      count('c', 3, 60),
      distinct('d', 'user_agent', 3, 60),
      average('v', 'request_time', '>', 1, 60),
      cep('p', 'strict', [['not-found', 1, 1]], 60),
    ]);
    const hostile = {
      get status(): never {
        throw new Error('boom');
      },
    };
    const odd: unknown[] = [
      null,
      undefined,
      42,
      'text',
      [],
      {},
      { src_ip: ['1.1.1.1'], status: { toString: () => '404' }, request_time: Symbol('x') },
      { src_ip: 'x'.repeat(1_000_000), user_agent: `${'x'.repeat(100_000)}z`, request_time: '9'.repeat(1000) },
      { src_ip: NaN, status: NaN, request_time: Infinity, user_agent: null },
      { src_ip: '1.1.1.1', _intelligence_result: { intel: 'not an object' }, ip_country: undefined },
      { src_ip: '1.1.1.1', _intelligence_result: 5 },
      Object.create(null) as object,
      hostile,
    ];
    for (const record of odd) {
      expect(() => engine.observe(ACCESS_LOG, record as Record<string, unknown>, at(0))).not.toThrow();
    }
    expect(() => engine.observe(ACCESS_LOG, hit('1.1.1.1'), NaN)).not.toThrow();
    expect(() => engine.observe(ACCESS_LOG, hit('1.1.1.1'), Infinity)).not.toThrow();
    expect(engine.failedRecords).toBe(1);
    expect(engine.observe(ACCESS_LOG, hit('2.2.2.2', { status: 404 }), at(1)).map((f) => f.eventId)).toContain(
      'not-found',
    );
    expect(engine.now).toBe(at(1));
  });

  it('keys a very long trigger-object value by a bounded prefix and hash', () => {
    const engine = engineWith([count('c', 2, 60)]);
    const long = 'k'.repeat(10_000);
    engine.observe(ACCESS_LOG, hit(long), at(0));
    const [firing] = engine.observe(ACCESS_LOG, hit(long), at(1));
    expect(firing?.key?.length).toBeLessThanOrEqual(256);
    expect(engine.observe(ACCESS_LOG, hit(`${long}!`), at(2))).toHaveLength(0);
  });
});

describe('EventEngine: bounded memory', () => {
  it('holds at most maxKeysPerEvent keys under a flood of unique keys, counting evictions', () => {
    const engine = engineWith(
      [
        count('c', 5, 60),
        distinct('d', 'request', 5, 60),
        { ...NOT_FOUND, enabled: false },
        cep('p', 'loose', [['not-found', 2, 2]], 60),
      ],
      { maxKeysPerEvent: 1000 },
    );
    for (let i = 0; i < 200_000; i++) {
      engine.observe(
        ACCESS_LOG,
        hit(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, { status: 404 }),
        at(i / 1000),
      );
    }
    const stats = engine.stats();
    for (const id of ['c', 'd', 'p']) {
      expect(stats[id]?.keys, id).toBeLessThanOrEqual(1000);
      expect(stats[id]?.evictions, id).toBe(199_000);
    }
  });

  it('keeps a key that is used while a flood of new keys passes', () => {
    const engine = engineWith([count('c', 3, 600)], { maxKeysPerEvent: 100 });
    const fired: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i % 40 === 0) for (const f of engine.observe(ACCESS_LOG, hit('hot'), at(i / 100))) fired.push(f.key ?? '');
      engine.observe(ACCESS_LOG, hit(`cold-${i}`), at(i / 100));
    }
    expect(fired[0]).toBe('hot');
  });

  it('drops keys whose window has passed on sweep, but keeps muted keys until their mute ends', () => {
    const engine = engineWith([
      count('c', 2, 10),
      cep('p', 'loose', [['not-found', 2, 2]], 10),
      { ...NOT_FOUND, enabled: false },
    ]);
    engine.observe(ACCESS_LOG, hit('a', { status: 404 }), at(0));
    engine.observe(ACCESS_LOG, hit('b'), at(0));
    engine.observe(ACCESS_LOG, hit('b'), at(5)); // c fires for b: muted until 15
    engine.sweep(at(9));
    expect(engine.stats().c?.keys).toBe(2);
    expect(engine.stats().p?.keys).toBe(1);
    engine.sweep(at(10));
    expect(engine.stats().c?.keys).toBe(1);
    expect(engine.stats().p?.keys).toBe(0);
    engine.sweep(at(15));
    expect(engine.stats().c?.keys).toBe(0);
  });

  it('counts firings per event: windowed parts that are not enabled too, simple filters not', () => {
    const engine = engineWith([{ ...NOT_FOUND, enabled: false }, count('c', 1, 60, { triggerEvent: 'not-found' })]);
    engine.observe(ACCESS_LOG, hit('a', { status: 404 }), at(0));
    engine.observe(ACCESS_LOG, hit('b', { status: 404 }), at(0));
    expect(engine.stats()).toEqual({
      'not-found': { keys: 0, evictions: 0, firings: 0 },
      c: { keys: 2, evictions: 0, firings: 2 },
    });
  });
});

describe('EventEngine: configure', () => {
  it('compiles enabled events and the parts they refer to, and skips what cannot compile', () => {
    const engine = new EventEngine();
    const report = engine.configure(
      [
        { ...NOT_FOUND, enabled: false },
        { ...ADMIN, enabled: false },
        count('c', 2, 60, { triggerEvent: 'not-found' }),
        count('broken', 2, 60, { triggerEvent: 'gone' }),
        combined('m', 'a', [['a', 'broken']]),
        simple('bad-regex', 'a', [when('a', 'request', 'regex', '(a)\\1')]),
      ],
      source,
    );
    expect(report.compiled.sort()).toEqual(['c', 'not-found']);
    expect(report.skipped).toEqual([
      { id: 'broken', code: 'event_unknown' },
      { id: 'm', code: 'event_invalid' },
      { id: 'bad-regex', code: 'regex_invalid' },
    ]);
  });

  it('keeps the state of unchanged events across configure, and drops that of changed ones', () => {
    const events = [count('keep', 3, 60), count('change', 3, 60)];
    const engine = engineWith(events);
    engine.observe(ACCESS_LOG, hit('a'), at(0));
    engine.observe(ACCESS_LOG, hit('a'), at(1));
    engine.configure([count('keep', 3, 60), count('change', 4, 60), count('new', 3, 60)], source);
    const ids = engine.observe(ACCESS_LOG, hit('a'), at(2)).map((f) => f.eventId);
    expect(ids).toEqual(['keep']);
  });

  it('keeps state when the events of a trigger object change around it', () => {
    const engine = engineWith([count('keep', 3, 60), average('avg', 'request_time', '>', 100, 60)]);
    for (let t = 0; t < 8; t++) engine.observe(ACCESS_LOG, hit('a', { request_time: 1 }), at(t));
    engine.configure([count('other', 50, 60, { object: 'ip' }), count('keep', 3, 60)], source);
    // 'keep' fired at 2 (muted until 62); its window since then holds 5 records: it fires at 62.
    expect(engine.observe(ACCESS_LOG, hit('a'), at(62)).map((f) => f.eventId)).toEqual(['keep']);
    expect(engine.stats().keep?.firings).toBe(2);
  });

  it('reports a name change in firings without losing state', () => {
    const engine = engineWith([count('c', 2, 60)]);
    engine.observe(ACCESS_LOG, hit('a'), at(0));
    engine.configure([{ ...count('c', 2, 60), name: 'renamed' }], source);
    expect(engine.observe(ACCESS_LOG, hit('a'), at(1))[0]?.eventName).toBe('renamed');
  });
});

describe('EventEngine: explain', () => {
  it('gives each condition’s outcome and the relation’s, with intelligence values', () => {
    const engine = engineWith([
      simple('s', 'a & !b', [when('a', 'ip_country', 'exact', 'CN'), when('b', 'status', '>=', 500)]),
    ]);
    const record = hit('1.1.1.1', { status: 200, _intelligence_result: { intel: { ip_country: 'CN' } } });
    expect(engine.explain('s', record)).toEqual([
      { label: 'a', field: 'ip_country', value: 'CN', matched: true },
      { label: 'b', field: 'status', value: 200, matched: false },
      { label: 's', field: '', value: 'a & !b', matched: true },
    ]);
  });

  it('explains the parts of windowed, CEP and combined events, and disabled events too', () => {
    const engine = engineWith([
      { ...NOT_FOUND, enabled: false },
      { ...LOGIN_POST, enabled: false },
      distinct('d', 'request', 2, 60, { triggerEvent: 'not-found', enabled: false }),
      cep(
        'p',
        'loose',
        [
          ['not-found', 1, 1],
          ['login-post', 1, 1],
        ],
        60,
      ),
      combined('m', 'a | b', [
        ['a', 'login-post'],
        ['b', 'd'],
      ]),
    ]);
    const record = hit('1.1.1.1', { status: 404 });
    expect(engine.explain('d', record)).toEqual([
      { label: 'not-found.a', field: 'status', value: 404, matched: true },
      { label: 'not-found', field: '', value: 'a', matched: true },
      { label: 'field', field: 'request', value: 'GET / HTTP/1.1', matched: true },
    ]);
    expect(engine.explain('p', record)?.map((r) => [r.label, r.matched])).toEqual([
      ['steps[0].a', true],
      ['steps[0]', true],
      ['steps[1].a', false],
      ['steps[1]', false],
    ]);
    expect(engine.explain('m', record)?.map((r) => [r.label, r.matched])).toEqual([
      ['a.a', false],
      ['a', false],
      ['b.not-found.a', true],
      ['b.not-found', true],
      ['b.field', true],
    ]);
    expect(engine.explain('gone', record)).toBeUndefined();
  });

  it('gives null for a field the record does not have', () => {
    const engine = engineWith([simple('s', 'a', [when('a', 'referrer', 'exact', 'x')])]);
    expect(engine.explain('s', { src_ip: '1.1.1.1' })?.[0]).toEqual({
      label: 'a',
      field: 'referrer',
      value: null,
      matched: false,
    });
  });
});

describe('EventEngine: snapshot and restore', () => {
  const events: EventDefinition[] = [
    { ...NOT_FOUND, enabled: true },
    { ...LOGIN_POST, enabled: false },
    { ...ADMIN, enabled: false },
    count('count', 12, 20),
    count('count-404', 4, 30, { triggerEvent: 'not-found' }),
    count('device', 15, 20, { object: 'device' }),
    distinct('paths', 'request', 9, 30),
    distinct('many-paths', 'request', 1500, 600),
    average('slow', 'request_time', '>', 4, 15),
    cep(
      'probe',
      'loose',
      [
        ['not-found', 2, 4],
        ['login-post', 1, 1],
      ],
      40,
    ),
    cep(
      'strict',
      'strict',
      [
        ['admin', 1, 2],
        ['not-found', 1, 1],
      ],
      20,
    ),
    combined('m', 'a & b', [
      ['a', 'count'],
      ['b', 'admin'],
    ]),
  ];

  /** A deterministic stream over 40 addresses: pages, 404s, logins, admin pages, one scanner with thousands of paths. */
  function stream(): { t: number; record: Record<string, unknown> }[] {
    let seed = 11;
    const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const out: { t: number; record: Record<string, unknown> }[] = [];
    for (let i = 0; i < 6000; i++) {
      const ip = `10.0.0.${Math.floor(rand() ** 2 * 40)}`;
      const r = rand();
      const request =
        r < 0.1
          ? 'POST /login HTTP/1.1'
          : r < 0.2
            ? 'GET /admin HTTP/1.1'
            : `GET /p/${Math.floor(rand() * 30)} HTTP/1.1`;
      out.push({
        t: i * 0.05,
        record: hit(ip, {
          request,
          status: r > 0.7 ? 404 : 200,
          request_time: rand() * 8,
          fingerprint: `fp-${ip.length}`,
        }),
      });
      if (i % 3 === 0) out.push({ t: i * 0.05, record: hit('scanner', { request: `GET /scan/${i} HTTP/1.1` }) });
    }
    return out;
  }

  const firingsOf = (engine: EventEngine, records: { t: number; record: Record<string, unknown> }[]) =>
    records.flatMap(({ t, record }) =>
      engine.observe(ACCESS_LOG, record, at(t)).map((f) => [f.eventId, f.key, f.at, f.meta]),
    );

  it('restored state continues exactly as an uninterrupted run', () => {
    // A low exact limit puts the scanner's distinct count in HyperLogLog mode before the snapshot.
    const options = { exactDistinct: 256 };
    const records = stream();
    const half = Math.floor(records.length / 2);
    const whole = firingsOf(engineWith(events, options), records);
    expect(whole.length).toBeGreaterThan(100);
    expect(new Set(whole.map(([id]) => id))).toEqual(
      new Set(['not-found', 'count', 'count-404', 'device', 'paths', 'many-paths', 'slow', 'probe', 'strict', 'm']),
    );

    const first = engineWith(events, options);
    const before = firingsOf(first, records.slice(0, half));
    first.sweep(at(records[half - 1]!.t));
    const text = first.snapshot();
    const second = engineWith(events, options);
    const report = second.restore(text);
    expect(report.ignored).toBe(0);
    expect(report.events).toBe(8);
    const after = firingsOf(second, records.slice(half));
    expect([...before, ...after]).toEqual(whole);
  });

  /** `stream()` over `addresses` addresses: enough keys that a snapshot taken in slices spans many records. */
  function wideStream(addresses: number): { t: number; record: Record<string, unknown> }[] {
    let seed = 5;
    const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    return Array.from({ length: 12_000 }, (_, i) => {
      const ip = `10.1.${Math.floor(rand() * addresses)}`;
      const r = rand();
      const request = r < 0.1 ? 'POST /login HTTP/1.1' : r < 0.2 ? 'GET /admin HTTP/1.1' : `GET /p/${i % 50} HTTP/1.1`;
      return {
        t: i * 0.01,
        record: hit(ip, { request, status: r > 0.6 ? 404 : 200, request_time: rand() * 8, fingerprint: `fp-${ip}` }),
      };
    });
  }

  it('a snapshot taken in slices while records arrive is the state at its start, and changes nothing', () => {
    // Fewer keys allowed than addresses: records during the snapshot evict keys not taken yet.
    const options = { exactDistinct: 64, maxKeysPerEvent: 1500 };
    const records = wideStream(2500);
    const half = Math.floor(records.length / 2);
    const whole = firingsOf(engineWith(events, options), records);

    const engine = engineWith(events, options);
    const before = firingsOf(engine, records.slice(0, half));
    const atStart = engine.snapshot();
    const taker = engine.beginSnapshot();
    const during: unknown[] = [];
    let next = half;
    let slices = 0;
    // Each slice takes a few dozen keys; between slices, records touch, create and evict keys.
    while (!taker.step(0)) {
      slices++;
      during.push(...firingsOf(engine, records.slice(next, next + 25)));
      next += 25;
      engine.sweep(at(records[next - 1]!.t));
    }
    expect(slices).toBeGreaterThan(20);
    expect(taker.complete).toBe(true);
    expect(Object.values(engine.stats()).some((s) => s.evictions > 0)).toBe(true);
    const sliced = [...taker.chunks()].join('');
    expect(sliced).toBe(atStart);

    // The engine went on as if no snapshot were taken...
    const after = firingsOf(engine, records.slice(next));
    expect([...before, ...during, ...after]).toEqual(whole);
    // ...and the sliced snapshot restores to the state at its start.
    const restored = engineWith(events, options);
    restored.restore(sliced);
    expect(restored.snapshot()).toBe(atStart);
  });

  it('a snapshot being taken is aborted by configure and restore, and by the next one', () => {
    const engine = engineWith(events);
    for (const { t, record } of wideStream(500)) engine.observe(ACCESS_LOG, record, at(t));
    const reconfigured = engine.beginSnapshot();
    engine.configure(events, source);
    expect(reconfigured.step(1000)).toBe(true);
    expect(reconfigured.complete).toBe(false);
    expect(() => [...reconfigured.chunks()]).toThrow(/not complete/);

    const replaced = engine.beginSnapshot();
    const last = engine.beginSnapshot();
    expect(replaced.step(1000)).toBe(true);
    expect(replaced.complete).toBe(false);
    const restoredOver = engine.beginSnapshot();
    expect(last.complete).toBe(false);
    engine.restore(engine.snapshot());
    expect(restoredOver.step(1000)).toBe(true);
    expect(restoredOver.complete).toBe(false);

    const finished = engine.beginSnapshot();
    while (!finished.step(1000));
    expect([...finished.chunks()].join('')).toBe(engine.snapshot());
  });

  it('a distinct key remembers threshold + 1 values, however many it sees', () => {
    const engine = engineWith([distinct('users', 'request', 3, 300)]);
    const fired: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      for (const f of engine.observe(ACCESS_LOG, hit('10.0.0.1', { request: `GET /u/${i} HTTP/1.1` }), at(i / 100)))
        fired.push(Number(f.meta.distinct));
    }
    // It fires as the third value arrives, and not again while muted for its window.
    expect(fired).toEqual([3]);
    // Four values of a 20,000 (hash and bucket each): the snapshot stays small.
    expect(engine.snapshot().length).toBeLessThan(1_000);
  });

  it('a snapshot survives JSON and restores the clock', () => {
    const engine = engineWith([count('c', 2, 60)]);
    engine.observe(ACCESS_LOG, hit('a'), at(100));
    const next = engineWith([count('c', 2, 60)]);
    next.restore(engine.snapshot());
    expect(next.now).toBe(at(100));
    expect(next.observe(ACCESS_LOG, hit('a'), at(50)).map((f) => [f.eventId, f.at])).toEqual([['c', at(100)]]);
  });

  it('ignores the state of events that changed or no longer exist', () => {
    const engine = engineWith([count('kept', 2, 60), count('changed', 2, 60), count('dropped', 2, 60)]);
    engine.observe(ACCESS_LOG, hit('a'), at(0));
    const next = engineWith([count('kept', 2, 60), count('changed', 2, 30)]);
    expect(next.restore(engine.snapshot())).toEqual({ events: 1, keys: 1, ignored: 2 });
    expect(next.observe(ACCESS_LOG, hit('a'), at(1)).map((f) => f.eventId)).toEqual(['kept']);
  });

  it('ignores text that is not a snapshot of this version', () => {
    const engine = engineWith([count('c', 2, 60)]);
    for (const text of ['', 'not json', '{}', '[]', '{"format":"rampart-events-state","version":99,"events":[]}']) {
      expect(engine.restore(text)).toEqual({ events: 0, keys: 0, ignored: 0 });
    }
    const bad = JSON.stringify({
      format: 'rampart-events-state',
      version: 1,
      clock: 0,
      events: [{ id: 'c', kind: 'count', sig: 'x', keys: [['a', 'no', 1, [], null, null]] }, 7],
    });
    expect(engine.restore(bad)).toEqual({ events: 0, keys: 0, ignored: 2 });
  });
});

describe('EventEngine: two logs', () => {
  it('a custom log’s records reach only the events of its source', () => {
    const engine = engineWith([count('app', 2, 60, { sources: ['app'] }), count('access', 2, 60)]);
    engine.observe(APP_LOG, { client: 'a' }, at(0));
    engine.observe(ACCESS_LOG, hit('a'), at(0));
    expect(engine.observe(APP_LOG, { client: 'a' }, at(1)).map((f) => f.eventId)).toEqual(['app']);
  });
});
