import { describe, expect, it } from 'vitest';
import { decodeBlock, encodeValues, RowEncoder } from '../../../engine/log-store/block-format.ts';

// A block stores each record's values once and its key names once per block; every record reads
// back as it was serialised, whatever its shape, and blocks written before (a JSON object per line)
// still read.

/** The block text the store writes: rows, then the header line. */
function block(records: readonly Record<string, unknown>[]): string {
  const encoder = new RowEncoder();
  const rows = records.map((r) => encoder.encode(r));
  return [...rows, encoder.header()].join('\n');
}

const roundTrip = (record: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(record));

describe('a block of records', () => {
  it('reads back every record as JSON would have kept it, in its key order, across shapes', () => {
    const records = [
      { _timestamp: 1, src_ip: '10.0.0.1', status: 200, ok: true, tags: ['a', 'b'], nested: { a: { b: 1 } } },
      { _timestamp: 2, src_ip: '10.0.0.2', status: 404, ok: false, tags: [], nested: null },
      { _timestamp: 3, other: 'shape', status: 500 },
      { status: 201, _timestamp: 4, src_ip: '10.0.0.4' },
      { _timestamp: 5, src_ip: '10.0.0.5', status: 200, ok: true, tags: ['c'], nested: {} },
    ];
    const rows = decodeBlock(block(records));
    expect(rows.lines).toHaveLength(5);
    records.forEach((record, row) => {
      expect(rows.record(row)).toEqual(roundTrip(record));
      expect(Object.keys(rows.record(row)!)).toEqual(Object.keys(record));
    });
    expect(rows.record(5)).toBeUndefined();
  });

  it('leaves out undefined and function values, as JSON.stringify does', () => {
    const rows = decodeBlock(block([{ _timestamp: 1, a: undefined, b: 'kept', c: () => 1, d: null }]));
    expect(rows.record(0)).toEqual({ _timestamp: 1, b: 'kept', d: null });
    expect(Object.keys(rows.record(0)!)).toEqual(['_timestamp', 'b', 'd']);
  });

  it('keeps quotes, line separators, non-Latin text and markup inside values', () => {
    const record = {
      _timestamp: 1,
      user_agent: 'Mozilla/5.0 "quoted" \u2028 攻击 \n next line',
      referrer: 'https://example.com/?q=</script>',
      request: 'GET /,"status":999 HTTP/1.1',
    };
    const text = block([record, record]);
    // one line per row and one for the header: a newline inside a value stays escaped
    expect(text.split('\n')).toHaveLength(3);
    expect(decodeBlock(text).record(1)).toEqual(record);
  });

  it('serialises a frozen object in last place once, with the same text as JSON.stringify', () => {
    const intel = Object.freeze({ intel: Object.freeze({ ip_city: 'Zürich', ip_asn: 64500, ua_family: 'Chrome' }) });
    const encoder = new RowEncoder();
    const first = encoder.encode({ _timestamp: 1, src_ip: '10.0.0.1', _intelligence_result: intel });
    const second = encoder.encode({ _timestamp: 2, src_ip: '10.0.0.1', _intelligence_result: intel });
    expect(first).toBe(JSON.stringify([0, 1, '10.0.0.1', intel]));
    expect(second).toBe(JSON.stringify([0, 2, '10.0.0.1', intel]));
    // a mutable object is serialised every time: a later change is stored
    const mutable = { count: 1 };
    expect(encoder.encode({ _timestamp: 3, m: mutable })).toContain('"count":1');
    mutable.count = 2;
    expect(encoder.encode({ _timestamp: 4, m: mutable })).toContain('"count":2');
  });

  it('makes the same rows from values encoded ahead', () => {
    const line = `{"msg":"say \\"hi\\"","pad":"${'x'.repeat(80)}"}`;
    const parsed = [
      { _timestamp: 1000, msg: 'say "hi"', status: 200, parsed: 1, log_setting_id: 'log_a', raw_data: line },
      { _timestamp: 1000, msg: 'short', status: 500, parsed: 1, log_setting_id: 'log_a', raw_data: 'short line' },
      { _timestamp: 1000, other: 'shape', raw_data: line },
    ];
    const plain = new RowEncoder();
    const ahead = new RowEncoder();
    for (const record of parsed) {
      const encoded = encodeValues(record);
      expect(encoded).toBeDefined();
      expect(ahead.encode(record, encoded)).toBe(plain.encode(record));
      // a record ending with the same text, encoded by the store, is plain JSON
      const raw = { _timestamp: 1000, log_id: 'events-0-1', parsed: 1, raw_data: record.raw_data };
      expect(new RowEncoder().encode(raw)).toBe(JSON.stringify([0, 1000, 'events-0-1', 1, record.raw_data]));
    }
    expect(ahead.header()).toBe(plain.header());
    expect(
      decodeBlock([ahead.encode(parsed[0]!, encodeValues(parsed[0]!)), ahead.header()].join('\n')).record(0),
    ).toEqual(parsed[0]);
    const single = { _timestamp: 1 };
    expect(new RowEncoder().encode(single, encodeValues(single))).toBe(new RowEncoder().encode(single));
    // nothing to encode ahead: no value, or one JSON would leave out
    expect(encodeValues({})).toBeUndefined();
    expect(encodeValues({ _timestamp: 1, a: undefined, b: 2 })).toBeUndefined();
  });

  it('keeps a `__proto__` field as a field, not a prototype', () => {
    const record = JSON.parse('{"_timestamp":1,"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    const back = decodeBlock(block([record])).record(0)!;
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect((back as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(back)).toBe(JSON.stringify(record));
  });

  it('holds each value in its row line as the record’s JSON escapes it, and key names only in the header', () => {
    const text = block([{ _timestamp: 1, user_agent: 'say "hi"' }]);
    const rows = decodeBlock(text);
    expect(rows.lines[0]).toContain(JSON.stringify('say "hi"').slice(1, -1));
    expect(rows.lines[0]).not.toContain('user_agent');
    expect(text).toContain('user_agent');
  });

  it('reads a block of the earlier format (one JSON object per line)', () => {
    const records = [
      { _timestamp: 1, a: 'x' },
      { _timestamp: 2, b: [1, 2] },
    ];
    const rows = decodeBlock(records.map((r) => JSON.stringify(r)).join('\n'));
    expect(rows.lines).toEqual(records.map((r) => JSON.stringify(r)));
    expect(rows.record(1)).toEqual(records[1]);
    expect(rows.record(2)).toBeUndefined();
  });

  it('gives no record for a row it cannot read, and still gives the others', () => {
    // A shape its header lacks, a row that is not JSON, a header that is not JSON.
    const block = decodeBlock('[3,1]\n[0,\n[0,7]\n{"shapes":[["_timestamp"]]}');
    expect(block.record(0)).toBeUndefined();
    expect(block.record(1)).toBeUndefined();
    expect(block.record(2)).toEqual({ _timestamp: 7 });
    expect(decodeBlock('[0,7]\n{"shapes":').record(0)).toBeUndefined();
    expect(decodeBlock('{"_timestamp":1}\n{"_times').record(1)).toBeUndefined();
  });
});
