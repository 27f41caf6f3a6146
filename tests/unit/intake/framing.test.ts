import { describe, expect, it } from 'vitest';
import { FrameDecoder, newFrameCounters, type FrameCounters } from '../../../engine/intake/framing.ts';

// One connection's bytes in, messages out: LF or RFC 6587 octet-counted framing, detected from the
// first bytes; memory bounded by the maximum message length; invalid UTF-8 repaired, never thrown.
// Empty lines are skipped and counted (`empty`), not delivered.

function decode(
  chunks: readonly (string | Buffer)[],
  max?: number,
  clean = true,
): { messages: string[]; counters: FrameCounters; decoder: FrameDecoder } {
  const counters = newFrameCounters();
  const decoder = new FrameDecoder(counters, max);
  const messages: string[] = [];
  for (const chunk of chunks) messages.push(...decoder.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
  messages.push(...decoder.end(clean));
  return { messages, counters, decoder };
}

/** The same bytes cut in two at every position give the same messages. */
function everySplit(bytes: Buffer, max?: number): string[][] {
  const results: string[][] = [];
  for (let at = 0; at <= bytes.length; at += 1) {
    results.push(decode([bytes.subarray(0, at), bytes.subarray(at)], max).messages);
  }
  return results;
}

describe('LF framing', () => {
  it('cuts lines at LF and strips a trailing CR', () => {
    const { messages, decoder } = decode(['<13>Jan  5 10:00:00 host a\n', 'second\r\nthird\n']);
    expect(messages).toEqual(['<13>Jan  5 10:00:00 host a', 'second', 'third']);
    expect(decoder.framing).toBe('lf');
  });

  it('reads a JSON line or one that starts with a date as LF, not as a frame length', () => {
    expect(decode(['{"a":1}\n2026-01-05 10:00:00 x\n']).messages).toEqual(['{"a":1}', '2026-01-05 10:00:00 x']);
    expect(decode(['2026-01-05 10:00:00 x\n']).decoder.framing).toBe('lf');
  });

  it('gives the same messages whatever byte the stream is split at', () => {
    const bytes = Buffer.from('alpha\r\nβeta ünïcode\n\nlast line\n');
    for (const result of everySplit(bytes)) expect(result).toEqual(['alpha', 'βeta ünïcode', 'last line']);
  });

  it('skips and counts empty lines', () => {
    const { messages, counters } = decode(['a\n\n\r\nb\n']);
    expect(messages).toEqual(['a', 'b']);
    expect(counters.empty).toBe(2);
  });

  it('skips an over-long line up to its LF, counts it, and reads the next line', () => {
    const long = 'x'.repeat(100);
    const { messages, counters } = decode([`ok\n${long.slice(0, 40)}`, long.slice(40), '\nnext\n'], 32);
    expect(messages).toEqual(['ok', 'next']);
    expect(counters.oversized).toBe(1);
  });

  it('accepts a line of exactly the maximum length, with or without CR', () => {
    const line = 'y'.repeat(32);
    for (const bytes of [`${line}\n`, `${line}\r\n`]) {
      for (const result of everySplit(Buffer.from(bytes), 32)) expect(result).toEqual([line]);
    }
    expect(decode([`${line}z\n`], 32).counters.oversized).toBe(1);
  });

  it('never holds more than the maximum of an endless line', () => {
    const counters = newFrameCounters();
    const decoder = new FrameDecoder(counters, 1024);
    for (let i = 0; i < 1000; i += 1) expect(decoder.push(Buffer.alloc(4096, 0x61))).toEqual([]);
    expect(counters.oversized).toBe(1);
    expect(decoder.push(Buffer.from('\nafter\n'))).toEqual(['after']);
  });

  it('delivers invalid UTF-8 with replacement characters and counts it', () => {
    const bytes = Buffer.concat([Buffer.from('bad '), Buffer.from([0xff, 0xc3]), Buffer.from(' end\ngood\n')]);
    const { messages, counters } = decode([bytes]);
    expect(messages).toEqual(['bad \uFFFD\uFFFD end', 'good']);
    expect(counters.invalidUtf8).toBe(1);
    expect(counters.messages).toBe(2);
  });

  it('keeps a last line without LF when the sender closes, and drops it (counted) when cut off', () => {
    expect(decode(['a\nlast'], undefined, true).messages).toEqual(['a', 'last']);
    const cut = decode(['a\npartial'], undefined, false);
    expect(cut.messages).toEqual(['a']);
    expect(cut.counters.incomplete).toBe(1);
  });
});

describe('octet-counted framing', () => {
  const frame = (message: string): string => `${Buffer.byteLength(message)} ${message}`;

  it('reads frames by their announced length, newlines inside included', () => {
    const { messages, decoder } = decode([frame('<13>one') + frame('two\nlines') + frame('ü')]);
    expect(messages).toEqual(['<13>one', 'two\nlines', 'ü']);
    expect(decoder.framing).toBe('octet-counted');
  });

  it('gives the same messages whatever byte the stream is split at', () => {
    const bytes = Buffer.from(frame('first message') + frame('zweite Nachricht ß') + frame('x'));
    for (const result of everySplit(bytes)) expect(result).toEqual(['first message', 'zweite Nachricht ß', 'x']);
  });

  it('tolerates an LF or CRLF after each frame', () => {
    expect(decode([`${frame('a')}\n${frame('b')}\r\n`]).messages).toEqual(['a', 'b']);
  });

  it('skips an over-long frame by its announced length and reads the next one', () => {
    const long = 'z'.repeat(100);
    for (const result of everySplit(Buffer.from(frame(long) + frame('after')), 32)) {
      expect(result).toEqual(['after']);
    }
    expect(decode([frame(long) + frame('after')], 32).counters.oversized).toBe(1);
  });

  it('counts a frame cut off by the end of the connection', () => {
    const { messages, counters } = decode([`${frame('whole')}20 only part`]);
    expect(messages).toEqual(['whole']);
    expect(counters.incomplete).toBe(1);
  });

  it('reads the rest as LF lines when a frame does not start with a length', () => {
    const { messages, counters, decoder } = decode([`${frame('a')}oops no length\nthen\n`]);
    expect(messages).toEqual(['a', 'oops no length', 'then']);
    expect(counters.framingErrors).toBe(1);
    expect(decoder.framing).toBe('lf');
  });
});
