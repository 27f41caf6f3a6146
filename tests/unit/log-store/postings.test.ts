/**
 * Index postings: a value's blocks and rows over one slot, written as one entry, read back as
 * they were; the gathering marker names exactly the blocks not yet written; the read-side heap
 * gives blocks newest first.
 */
import { describe, expect, it } from 'vitest';
import {
  decodePosting,
  encodePosting,
  Gatherer,
  markerHolds,
  NewestFirst,
  SLOT,
  type Position,
} from '../../../engine/log-store/postings.ts';

const T = Date.UTC(2026, 10, 27, 4, 0, 0);

describe('a posting', () => {
  it('reads back every block with its rows, oldest first, whatever order they were gathered in', () => {
    const positions: Position[] = [
      { second: T + 3000, seq: 7, rows: [0, 5, 130, 20_000], blockRows: 20_001 },
      { second: T, seq: 2, rows: [0, 1, 2], blockRows: 3 },
      { second: T + 3000, seq: 4, rows: [9], blockRows: 200 },
      { second: T + SLOT - 1000, seq: 0xfff00001, rows: [0, 1], blockRows: 2 },
    ];
    const decoded = decodePosting(T, encodePosting(T, positions)).map((b) => ({
      second: b.second,
      seq: b.seq,
      rows: b.rows(),
    }));
    expect(decoded).toEqual([
      { second: T, seq: 2, rows: [0, 1, 2] },
      { second: T + 3000, seq: 4, rows: [9] },
      { second: T + 3000, seq: 7, rows: [0, 5, 130, 20_000] },
      { second: T + SLOT - 1000, seq: 0xfff00001, rows: [0, 1] },
    ]);
  });

  it('keeps a long row list whose length takes several bytes', () => {
    const rows = Array.from({ length: 3000 }, (_, i) => i * 3);
    const [block] = decodePosting(T, encodePosting(T, [{ second: T, seq: 1, rows, blockRows: 9000 }]));
    expect(block!.rows()).toEqual(rows);
  });

  it('says it is damaged rather than inventing blocks', () => {
    const bytes = encodePosting(T, [{ second: T, seq: 1, rows: [3, 4], blockRows: 9 }]);
    expect(() => decodePosting(T, bytes.subarray(0, bytes.length - 1))).toThrow(/ends inside/);
  });
});

describe('gathering', () => {
  const block = (second: number, seq: number, values: Record<string, number[]>) => ({
    second,
    seq,
    rows: 10,
    index: new Map([['src_ip', new Map(Object.entries(values))]]),
  });

  it('holds each value’s blocks until due, and its marker names exactly those blocks', () => {
    const g = new Gatherer();
    g.add('custom:a', ['src_ip'], block(T, 0x00300005, { '10.0.0.1': [1, 2] }), 0);
    g.add('custom:a', ['src_ip'], block(T - 2000, 0x00300009, { '10.0.0.1': [0] }), 10);
    const marker = g.marker('custom:a')!;
    expect(marker).toMatchObject({ second: T - 2000, first: 0x00300005, last: 0x00300009 });
    expect(markerHolds(marker, 0x00300007)).toBe(true);
    expect(markerHolds(marker, 0x00300004)).toBe(false);
    expect(markerHolds(marker, 0x00400006)).toBe(false); // another boot
    expect(g.positions('custom:a', 'src_ip', '10.0.0.1').map((p) => p.seq)).toEqual([0x00300005, 0x00300009]);
    expect(g.due(1000)).toEqual([]);
    expect(g.due(5000)).toEqual(['custom:a']);
    expect(g.take('custom:a', 5000)?.get('src_ip')?.get('10.0.0.1')).toHaveLength(2);
    expect(g.size).toBe(0);
  });

  it('writes a field whose values hardly repeat per block for a while, then gathers it again to look', () => {
    const g = new Gatherer();
    const unique = (n: number, from: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`10.0.${(from + i) >> 8}.${(from + i) & 255}`, [i]]));
    g.add(
      'access:s1',
      ['src_ip'],
      {
        ...block(T, 1, {}),
        index: new Map([
          ['src_ip', new Map(Object.entries(unique(2000, 0)))],
          ['status', new Map([['200', [0, 1]]])],
        ]),
      },
      0,
    );
    g.add('access:s1', ['src_ip'], { ...block(T, 2, {}), index: new Map([['status', new Map([['200', [0]]])]]) }, 1);
    g.take('access:s1', 5000);
    expect(g.direct('access:s1', 'src_ip', 5001)).toBe(true);
    expect(g.direct('access:s1', 'status', 5001)).toBe(false);
    // A gathering that starts while it is direct keeps it direct to its end.
    g.add('access:s1', ['src_ip', 'status'], block(T + 1000, 3, { '10.9.9.9': [0] }), 34_000);
    expect(g.positions('access:s1', 'src_ip', '10.9.9.9')).toEqual([]);
    expect(g.marker('access:s1')?.fields).toEqual(['status']);
    expect(g.direct('access:s1', 'src_ip', 36_000)).toBe(true);
    g.take('access:s1', 39_000);
    expect(g.direct('access:s1', 'src_ip', 39_001)).toBe(false);
  });

  it('marks a range of sequences that wrapped past the low 20 bits', () => {
    const marker = { second: T, first: 0x003ffffe, last: 0x00300002, fields: [] };
    expect(markerHolds(marker, 0x003fffff)).toBe(true);
    expect(markerHolds(marker, 0x00300001)).toBe(true);
    expect(markerHolds(marker, 0x00300003)).toBe(false);
  });

  it('merges two long values cut to one indexed form in one block', () => {
    const g = new Gatherer();
    const long = 'x'.repeat(300);
    g.add(
      'a',
      ['f'],
      {
        second: T,
        seq: 1,
        rows: 5,
        index: new Map([
          [
            'f',
            new Map([
              [`${long}1`, [3]],
              [`${long}2`, [1]],
            ]),
          ],
        ]),
      },
      0,
    );
    const [position] = g.positions('a', 'f', 'x'.repeat(256));
    expect(position?.rows).toEqual([1, 3]);
  });
});

describe('the newest-first heap', () => {
  it('pops by second, then sequence, newest first', () => {
    const heap = new NewestFirst<{ second: number; seq: number }>();
    for (const [second, seq] of [
      [5, 1],
      [9, 0],
      [5, 3],
      [1, 9],
      [9, 2],
    ] as const)
      heap.push({ second, seq });
    const out: string[] = [];
    for (let top = heap.pop(); top; top = heap.pop()) out.push(`${top.second}/${top.seq}`);
    expect(out).toEqual(['9/2', '9/0', '5/3', '5/1', '1/9']);
  });
});
