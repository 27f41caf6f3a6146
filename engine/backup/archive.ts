import {
  createCipheriv,
  createDecipheriv,
  randomBytes,
  scrypt as scryptCallback,
  type ScryptOptions,
} from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import { RampartError } from '#engine/shared';

/**
 * The backup archive: a plain header that says what the archive is, then its content, gzipped and
 * encrypted with AES-256-GCM under a key derived from the passphrase with scrypt, then the GCM tag.
 * The header is the cipher's additional data: changing it (to pass off a newer archive as an older
 * one) fails the tag like changing the content does.
 *
 *   "RAMPART-BACKUP\n"  u32 BE header length  header (JSON)  ciphertext  tag (16 bytes)
 *
 * The content is a sequence of frames: the data directory's files (path, bytes), then the log
 * store's entries (key, value), then an end frame with the counts, so a truncated archive is told
 * from a whole one even before the tag is checked.
 */

export const MAGIC = Buffer.from('RAMPART-BACKUP\n', 'latin1');
/** The archive format this engine writes and the newest it reads. */
export const ARCHIVE_FORMAT = 1;
const TAG_BYTES = 16;
const MAX_HEADER = 64 * 1024;
/** scrypt cost: about 100 ms and 32 MB here, once per backup or restore. */
const KDF = { N: 2 ** 15, r: 8, p: 1 } as const;
export const MIN_PASSPHRASE = 10;

export interface ArchiveHeader {
  format: number;
  /** The engine that wrote it (package version). */
  engineVersion: string;
  /** The configuration schema of the configuration in it: a newer one than this engine reads is refused. */
  schemaVersion: number;
  createdAt: number;
  /** Whether the log store's entries are in it. */
  logs: boolean;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  cipher: 'aes-256-gcm';
  iv: string;
}

export type Frame =
  | { kind: 'file'; path: string; data: Buffer }
  | { kind: 'entry'; key: Buffer; value: string }
  | { kind: 'end'; files: number; entries: number };

const refusal = (reason: string, message: string, cause?: unknown): RampartError =>
  new RampartError('VALIDATION_FAILED', message, {
    field: reason === 'backup_passphrase' ? 'passphrase' : 'archive',
    params: { reason },
    ...(cause === undefined ? {} : { cause }),
  });

function deriveKey(passphrase: string, kdf: ArchiveHeader['kdf']): Promise<Buffer> {
  const options: ScryptOptions = { N: kdf.N, r: kdf.r, p: kdf.p, maxmem: 256 * kdf.N * kdf.r };
  return new Promise((resolve, reject) =>
    scryptCallback(passphrase.normalize('NFC'), Buffer.from(kdf.salt, 'base64'), 32, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE) {
    throw new RampartError('VALIDATION_FAILED', `passphrase: must be at least ${MIN_PASSPHRASE} characters`, {
      field: 'passphrase',
      params: { reason: 'backup_passphrase_short', min: MIN_PASSPHRASE },
    });
  }
}

function frameBytes(frame: Frame): Buffer[] {
  switch (frame.kind) {
    case 'file': {
      const name = Buffer.from(frame.path, 'utf8');
      const head = Buffer.alloc(1 + 2 + 8);
      head.writeUInt8(1, 0);
      head.writeUInt16BE(name.length, 1);
      head.writeBigUInt64BE(BigInt(frame.data.length), 3);
      return [head, name, frame.data];
    }
    case 'entry': {
      const value = Buffer.from(frame.value, 'utf8');
      const head = Buffer.alloc(1 + 4 + 4);
      head.writeUInt8(2, 0);
      head.writeUInt32BE(frame.key.length, 1);
      head.writeUInt32BE(value.length, 5);
      return [head, frame.key, value];
    }
    case 'end': {
      const head = Buffer.alloc(1 + 8 + 8);
      head.writeUInt8(0, 0);
      head.writeBigUInt64BE(BigInt(frame.files), 1);
      head.writeBigUInt64BE(BigInt(frame.entries), 9);
      return [head];
    }
  }
}

/**
 * Writes an archive of `frames` (files first, then log entries; the end frame is added here) to
 * `file`, created with mode 0600. `header` is everything but the cipher's parameters.
 */
export async function writeArchive(
  file: string,
  passphrase: string,
  header: Omit<ArchiveHeader, 'kdf' | 'cipher' | 'iv' | 'format'> & { format?: number },
  frames: AsyncIterable<Frame>,
): Promise<void> {
  checkPassphrase(passphrase);
  const full: ArchiveHeader = {
    format: ARCHIVE_FORMAT,
    ...header,
    kdf: { name: 'scrypt', ...KDF, salt: randomBytes(16).toString('base64') },
    cipher: 'aes-256-gcm',
    iv: randomBytes(12).toString('base64'),
  };
  const key = await deriveKey(passphrase, full.kdf);
  const json = Buffer.from(JSON.stringify(full), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  const preamble = Buffer.concat([MAGIC, length, json]);
  const cipher = createCipheriv('aes-256-gcm', key, Buffer.from(full.iv, 'base64'));
  cipher.setAAD(preamble);
  async function* plain(): AsyncGenerator<Buffer> {
    let files = 0;
    let entries = 0;
    for await (const frame of frames) {
      if (frame.kind === 'file') files++;
      else if (frame.kind === 'entry') entries++;
      else continue;
      yield* frameBytes(frame);
    }
    yield* frameBytes({ kind: 'end', files, entries });
  }
  const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  out.write(preamble);
  await pipeline(Readable.from(plain()), createGzip(), cipher, out, { end: false });
  await new Promise<void>((resolve, reject) =>
    out.end(Buffer.from(cipher.getAuthTag()), () => resolve()).once('error', reject),
  );
}

/** The header of an archive, read without the passphrase; refuses what is not an archive this engine can read. */
export async function readHeader(file: string): Promise<{ header: ArchiveHeader; preamble: Buffer }> {
  const handle = await open(file, 'r');
  try {
    const start = Buffer.alloc(MAGIC.length + 4);
    await handle.read(start, 0, start.length, 0);
    if (!start.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw refusal('backup_not_archive', 'archive: is not a Rampart backup');
    }
    const length = start.readUInt32BE(MAGIC.length);
    if (length > MAX_HEADER) throw refusal('backup_damaged', 'archive: its header is damaged');
    const json = Buffer.alloc(length);
    await handle.read(json, 0, length, start.length);
    let header: ArchiveHeader;
    try {
      header = JSON.parse(json.toString('utf8')) as ArchiveHeader;
    } catch (cause) {
      throw refusal('backup_damaged', 'archive: its header is damaged', cause);
    }
    if (typeof header.format !== 'number' || header.format > ARCHIVE_FORMAT) {
      throw refusal(
        'backup_newer',
        `archive: it was written in archive format ${String(header.format)} by Rampart ${String(header.engineVersion)}; this Rampart reads up to format ${ARCHIVE_FORMAT}. Upgrade Rampart first.`,
      );
    }
    return { header, preamble: Buffer.concat([start, json]) };
  } finally {
    await handle.close();
  }
}

/** Reads frames from a byte stream. */
async function* framesOf(source: AsyncIterable<Buffer>): AsyncGenerator<Frame> {
  let buffer: Buffer = Buffer.alloc(0);
  const chunks = source[Symbol.asyncIterator]();
  let ended = false;
  const need = async (n: number): Promise<void> => {
    while (buffer.length < n) {
      const next = await chunks.next();
      if (next.done) {
        ended = true;
        throw refusal('backup_damaged', 'archive: it ends too early (damaged or cut short)');
      }
      buffer = buffer.length === 0 ? next.value : Buffer.concat([buffer, next.value]);
    }
  };
  const take = (n: number): Buffer => {
    const out = buffer.subarray(0, n);
    buffer = buffer.subarray(n);
    return out;
  };
  let files = 0;
  let entries = 0;
  for (;;) {
    await need(1);
    const type = take(1).readUInt8(0);
    if (type === 1) {
      await need(10);
      const head = take(10);
      const nameLength = head.readUInt16BE(0);
      const size = Number(head.readBigUInt64BE(2));
      await need(nameLength + size);
      const path = take(nameLength).toString('utf8');
      files++;
      yield { kind: 'file', path, data: Buffer.from(take(size)) };
    } else if (type === 2) {
      await need(8);
      const head = take(8);
      const keyLength = head.readUInt32BE(0);
      const valueLength = head.readUInt32BE(4);
      await need(keyLength + valueLength);
      const key = Buffer.from(take(keyLength));
      entries++;
      yield { kind: 'entry', key, value: take(valueLength).toString('utf8') };
    } else if (type === 0) {
      await need(16);
      const head = take(16);
      const end = { files: Number(head.readBigUInt64BE(0)), entries: Number(head.readBigUInt64BE(8)) };
      if (end.files !== files || end.entries !== entries)
        throw refusal('backup_damaged', 'archive: its counts do not match');
      // Drain the stream: the cipher checks its tag at the very end.
      while (!ended && !(await chunks.next()).done);
      yield { kind: 'end', ...end };
      return;
    } else {
      throw refusal('backup_damaged', 'archive: damaged content');
    }
  }
}

/**
 * The frames of an archive. The content is checked against its tag only at its end: a caller
 * stages what it reads and keeps it only once the end frame has come (the last frame, yielded
 * after the tag was checked). A wrong passphrase is found at once (gzip cannot read the content).
 */
export async function* readArchive(file: string, passphrase: string): AsyncGenerator<Frame, void, undefined> {
  const { header, preamble } = await readHeader(file);
  if (header.cipher !== 'aes-256-gcm' || header.kdf?.name !== 'scrypt') {
    throw refusal('backup_damaged', 'archive: unknown cipher or key derivation');
  }
  const size = (await stat(file)).size;
  if (size < preamble.length + TAG_BYTES)
    throw refusal('backup_damaged', 'archive: it ends too early (damaged or cut short)');
  const tag = Buffer.alloc(TAG_BYTES);
  const handle = await open(file, 'r');
  try {
    await handle.read(tag, 0, TAG_BYTES, size - TAG_BYTES);
  } finally {
    await handle.close();
  }
  const key = await deriveKey(passphrase, header.kdf);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(header.iv, 'base64'));
  decipher.setAAD(preamble);
  decipher.setAuthTag(tag);
  const source = createReadStream(file, { start: preamble.length, end: size - TAG_BYTES - 1 });
  const gunzip = createGunzip();
  const done = pipeline(source, decipher, gunzip).catch((error: unknown) => {
    throw error instanceof RampartError
      ? error
      : refusal('backup_passphrase', 'passphrase: wrong passphrase, or the archive is damaged', error);
  });
  // Errors surface through `done`; the iteration below only reads.
  done.catch(() => undefined);
  try {
    for await (const frame of framesOf(gunzip as AsyncIterable<Buffer>)) {
      if (frame.kind === 'end') await done;
      yield frame;
    }
  } catch (error) {
    if (error instanceof RampartError) throw error;
    // A stream failed: the pipeline says which (a wrong key fails gunzip, a changed byte the tag).
    await done;
    throw refusal('backup_passphrase', 'passphrase: wrong passphrase, or the archive is damaged', error);
  } finally {
    gunzip.destroy();
    source.destroy();
  }
}
