import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { zipStore } from '../../../engine/intake/zip.ts';

// A store-only zip: what unzip reads back byte for byte, names in UTF-8, a key file's mode kept.

const dir = mkdtempSync(join(tmpdir(), 'rampart-zip-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entries = [
  { name: 'a.txt', data: 'hello\n' },
  { name: 'binary.bin', data: Buffer.from([0, 1, 2, 255, 254]) },
  { name: 'secret.pem', data: 'key\n', mode: 0o600 },
  { name: 'ünï.md', data: 'unicode name\n' },
];

/** The central directory, read by hand: names, sizes, CRCs and offsets. */
function centralDirectory(zip: Buffer): { name: string; size: number; crc: number; offset: number }[] {
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out = [];
  for (let i = 0; i < count; i += 1) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    out.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      crc: zip.readUInt32LE(at + 16),
      size: zip.readUInt32LE(at + 24),
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

describe('zipStore', () => {
  const zip = zipStore(entries, new Date(Date.UTC(2026, 0, 5, 10, 30, 0)));

  it('lists every file with its size, CRC-32 and the offset of its data', () => {
    const listed = centralDirectory(zip);
    expect(listed.map((e) => e.name)).toEqual(entries.map((e) => e.name));
    listed.forEach((entry, i) => {
      const data = Buffer.from(entries[i]!.data);
      expect(entry.size).toBe(data.length);
      expect(entry.crc).toBe(crc32(data) >>> 0);
      const nameLength = zip.readUInt16LE(entry.offset + 26);
      expect(zip.subarray(entry.offset + 30 + nameLength, entry.offset + 30 + nameLength + entry.size)).toEqual(data);
    });
  });

  it('is read back intact by unzip, with the key file private', (ctx) => {
    if (!existsSync('/usr/bin/unzip')) return ctx.skip('unzip is not installed (apt-get install unzip)');
    const file = join(dir, 'test.zip');
    writeFileSync(file, zip);
    expect(execFileSync('unzip', ['-t', file]).toString()).toContain('No errors detected');
    execFileSync('unzip', ['-o', '-q', file, '-d', join(dir, 'out')]);
    expect(readFileSync(join(dir, 'out', 'ünï.md'), 'utf8')).toBe('unicode name\n');
    expect(readFileSync(join(dir, 'out', 'binary.bin'))).toEqual(Buffer.from([0, 1, 2, 255, 254]));
    expect(statSync(join(dir, 'out', 'secret.pem')).mode & 0o777).toBe(0o600);
  });
});
