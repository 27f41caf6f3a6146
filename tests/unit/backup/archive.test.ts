import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, readHeader, writeArchive, type Frame } from '#engine/backup';

const PASSPHRASE = 'a long enough passphrase';
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-archive-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const FRAMES: Frame[] = [
  { kind: 'file', path: 'config.json', data: Buffer.from('{"schemaVersion":8,"secret":"s3cr3t-value"}') },
  { kind: 'file', path: 'rule-sets/crs/rules.conf', data: Buffer.alloc(70_000, 7) },
  { kind: 'entry', key: Buffer.from([0x61, 0, 1, 2, 255]), value: '["a",1]' },
  { kind: 'entry', key: Buffer.from('b'), value: '' },
];

async function written(name: string, header: { schemaVersion?: number } = {}): Promise<string> {
  const file = join(dir, name);
  await writeArchive(
    file,
    PASSPHRASE,
    { engineVersion: '0.1.0', schemaVersion: header.schemaVersion ?? 8, createdAt: 1, logs: true },
    (async function* () {
      for (const frame of FRAMES) yield await Promise.resolve(frame);
    })(),
  );
  return file;
}

async function frames(file: string, passphrase = PASSPHRASE): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const frame of readArchive(file, passphrase)) out.push(frame);
  return out;
}

describe('the backup archive', () => {
  it('gives back every file and log entry, byte for byte, then an end frame with the counts', async () => {
    const file = await written('round-trip.rbk');
    expect(await frames(file)).toEqual([...FRAMES, { kind: 'end', files: 2, entries: 2 }]);
    expect((await readFile(file)).includes(Buffer.from('s3cr3t-value'))).toBe(false);
  });

  it('is refused when its header is edited (a newer schema passed off as an older one): the header is authenticated', async () => {
    const file = await written('header.rbk', { schemaVersion: 9 });
    const bytes = (await readFile(file)).toString('latin1').replace('"schemaVersion":9', '"schemaVersion":8');
    const edited = join(dir, 'edited.rbk');
    await writeFile(edited, Buffer.from(bytes, 'latin1'));
    expect((await readHeader(edited)).header.schemaVersion).toBe(8);
    await expect(frames(edited)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('is refused when cut short, and with a wrong passphrase', async () => {
    const file = await written('cut.rbk');
    const bytes = await readFile(file);
    const cut = join(dir, 'cut-short.rbk');
    await writeFile(cut, bytes.subarray(0, bytes.length - 200));
    await expect(frames(cut)).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(frames(file, 'a wrong passphrase!')).rejects.toMatchObject({
      params: { reason: 'backup_passphrase' },
    });
  });

  it('refuses a short passphrase and what is not an archive', async () => {
    await expect(
      writeArchive(
        join(dir, 'x.rbk'),
        'short',
        { engineVersion: '0', schemaVersion: 8, createdAt: 0, logs: false },
        (async function* () {})(),
      ),
    ).rejects.toMatchObject({ params: { reason: 'backup_passphrase_short' } });
    const text = join(dir, 'notes.txt');
    await writeFile(text, 'just some text, long enough to have a header');
    await expect(readHeader(text)).rejects.toMatchObject({ params: { reason: 'backup_not_archive' } });
  });
});
