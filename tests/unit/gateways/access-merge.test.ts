import { afterEach, describe, expect, it } from 'vitest';
import { AccessMerge, withResponse, type AccessRecord } from '#engine/gateways';
import { accessRecord, decide } from '#engine/verdict';
import { ports, request, site } from '../verdict/fixture.ts';

// A verdict's access record waits for nginx's log line of the same request: merged when it comes,
// written without response fields when it does not come in time, never lost.

const VERDICT_TIME = 1_767_225_600_123;
const WAIT_MS = 3000;

interface Written {
  log: string;
  time: number;
  record: Record<string, unknown>;
}

/** A verdict record of the real access-record code (a request with a quote-laden user agent). */
function verdictRecord(uri = '/cart'): AccessRecord {
  const s = site();
  const facts = request({ uri, headers: { 'user-agent': 'Mozilla/5.0 ,"status":999 "x"' } });
  const intel = Object.freeze({ intel: Object.freeze({ ua_family: 'Chrome' }) });
  return accessRecord(s, facts, decide(s, facts, ports()), VERDICT_TIME, intel, null);
}

/** A record as the log store keeps it (undefined fields are not stored). */
const stored = (record: AccessRecord): Record<string, unknown> =>
  JSON.parse(JSON.stringify(record)) as Record<string, unknown>;

let merges: AccessMerge[] = [];
afterEach(() => {
  for (const merge of merges) merge.close();
  merges = [];
});

function setup(options: { maxPending?: number } = {}) {
  let now = 50_000;
  const written: Written[] = [];
  const merge = new AccessMerge({
    append: (log, record) => written.push({ log, time: record._timestamp, record: stored(record) }),
    now: () => now,
    waitMs: WAIT_MS,
    maxPending: options.maxPending ?? 100,
  });
  merges.push(merge);
  const hold = (id: string, record = verdictRecord()): boolean =>
    merge.hold(id, { log: 'access:site_1', siteId: 'site_1', record });
  return { merge, written, hold, advance: (ms: number) => (now += ms) };
}

const RESPONSE = { status: 201, bodyBytesSent: 1234, requestTimeSeconds: 0.012 };

describe('a held verdict record', () => {
  it('is not written while it waits for its line', () => {
    const { merge, written, hold } = setup();
    expect(hold('a1')).toBe(true);
    expect(written).toEqual([]);
    expect(merge.size).toBe(1);
  });

  it('is written once with the line’s status, bytes and request time, at its verdict time, every other field kept', () => {
    const { merge, written, hold } = setup();
    hold('a1');
    expect(merge.complete('a1', 'site_1', RESPONSE)).toBe(true);
    const unmerged = stored(verdictRecord());
    expect(written).toEqual([
      {
        log: 'access:site_1',
        time: VERDICT_TIME,
        record: { ...unmerged, status: 201, body_bytes_sent: 1234, request_time: 0.012 },
      },
    ]);
    expect(written[0]?.record._timestamp).toBe(VERDICT_TIME);
    // set in place: the fields keep their order
    expect(Object.keys(written[0]?.record ?? {})).toEqual(Object.keys(unmerged));
    expect(written[0]?.record.user_agent).toBe('Mozilla/5.0 ,"status":999 "x"');
    expect(merge.size).toBe(0);
    expect(merge.counts).toMatchObject({ held: 1, merged: 1, unmerged: 0 });
  });

  it('waits the whole bound: nothing is written a millisecond before it', () => {
    const { merge, written, hold, advance } = setup();
    hold('a1');
    advance(WAIT_MS - 1);
    merge.sweep();
    expect(written).toEqual([]);
    expect(merge.complete('a1', 'site_1', RESPONSE)).toBe(true);
  });

  it('is written without status, body_bytes_sent and request_time when its line does not come in time', () => {
    const { merge, written, hold, advance } = setup();
    hold('a1');
    advance(WAIT_MS);
    merge.sweep();
    expect(written).toHaveLength(1);
    const record = written[0]?.record ?? {};
    expect(record).not.toHaveProperty('status');
    expect(record).not.toHaveProperty('body_bytes_sent');
    expect(record).not.toHaveProperty('request_time');
    expect(record).toMatchObject({ _timestamp: VERDICT_TIME, request: 'GET /cart HTTP/1.1', guard_status: 'PASS' });
    expect(written[0]?.time).toBe(VERDICT_TIME);
    expect(merge.counts.unmerged).toBe(1);
  });

  it('writes the due records in a sweep and keeps the later ones waiting', () => {
    const { merge, written, hold, advance } = setup();
    hold('a1', verdictRecord('/first'));
    advance(1000);
    hold('a2', verdictRecord('/second'));
    advance(WAIT_MS - 1000);
    merge.sweep();
    expect(written.map((w) => w.record.request)).toEqual(['GET /first HTTP/1.1']);
    expect(merge.complete('a2', 'site_1', RESPONSE)).toBe(true);
  });

  it('is written on its own timer once the bound passes (real time, short bound)', async () => {
    const written: string[] = [];
    const merge = new AccessMerge({
      append: (_log, record) => written.push(JSON.stringify(record)),
      now: () => performance.now(),
      waitMs: 30,
      maxPending: 10,
    });
    merges.push(merge);
    merge.hold('t1', { log: 'access:site_1', siteId: 'site_1', record: verdictRecord() });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(written).toHaveLength(1);
  });
});

describe('a line without its record', () => {
  it('finds nothing when no record was held, or when it was written already', () => {
    const { merge, hold, advance } = setup();
    expect(merge.complete('never', 'site_1', RESPONSE)).toBe(false);
    hold('a1');
    advance(WAIT_MS);
    merge.sweep();
    expect(merge.complete('a1', 'site_1', RESPONSE)).toBe(false);
  });

  it('finds nothing when the record waiting under its id is another site’s, which keeps waiting', () => {
    const { merge, written, hold } = setup();
    hold('a1');
    expect(merge.complete('a1', 'site_2', RESPONSE)).toBe(false);
    expect(written).toEqual([]);
    expect(merge.complete('a1', 'site_1', RESPONSE)).toBe(true);
  });

  it('finds nothing the second time: a record is merged once', () => {
    const { merge, written, hold } = setup();
    hold('a1');
    merge.complete('a1', 'site_1', RESPONSE);
    expect(merge.complete('a1', 'site_1', { ...RESPONSE, status: 500 })).toBe(false);
    expect(written).toHaveLength(1);
  });
});

describe('bounds', () => {
  it('writes the oldest record at once when maxPending records wait', () => {
    const { merge, written, hold } = setup({ maxPending: 2 });
    hold('a1', verdictRecord('/one'));
    hold('a2', verdictRecord('/two'));
    hold('a3', verdictRecord('/three'));
    expect(written.map((w) => w.record.request)).toEqual(['GET /one HTTP/1.1']);
    expect(written[0]?.record).not.toHaveProperty('status');
    expect(merge.size).toBe(2);
    expect(merge.counts.evicted).toBe(1);
    expect(merge.complete('a3', 'site_1', RESPONSE)).toBe(true);
  });

  it('writes the earlier record of a request id asked about twice, and merges the later one', () => {
    const { merge, written, hold } = setup();
    hold('a1', verdictRecord('/index.html'));
    hold('a1', verdictRecord('/'));
    expect(written.map((w) => w.record.request)).toEqual(['GET /index.html HTTP/1.1']);
    merge.complete('a1', 'site_1', RESPONSE);
    expect(written.map((w) => [w.record.request, w.record.status])).toEqual([
      ['GET /index.html HTTP/1.1', undefined],
      ['GET / HTTP/1.1', 201],
    ]);
  });

  it('holds nothing under an id nginx cannot have made (the caller writes the record)', () => {
    const { merge, hold } = setup();
    expect(hold('')).toBe(false);
    expect(hold('a b')).toBe(false);
    expect(hold('x'.repeat(65))).toBe(false);
    expect(merge.size).toBe(0);
  });

  it('writes everything held on close and holds nothing after it', () => {
    const { merge, written, hold } = setup();
    hold('a1');
    hold('a2');
    merge.close();
    expect(written).toHaveLength(2);
    expect(hold('a3')).toBe(false);
    expect(merge.size).toBe(0);
  });
});

describe('withResponse', () => {
  it('sets or removes the three fields of a record of another shape too', () => {
    const other = (): AccessRecord => ({ _timestamp: 1, request: 'GET / HTTP/1.1', status: 200, head_bytes: 70_000 });
    expect(stored(withResponse(other(), RESPONSE))).toEqual({
      _timestamp: 1,
      request: 'GET / HTTP/1.1',
      head_bytes: 70_000,
      status: 201,
      body_bytes_sent: 1234,
      request_time: 0.012,
    });
    expect(stored(withResponse(other(), null))).toEqual({
      _timestamp: 1,
      request: 'GET / HTTP/1.1',
      head_bytes: 70_000,
    });
  });
});
