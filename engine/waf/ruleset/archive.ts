/**
 * Uploaded rule-set archives: .tar.gz / .tgz / .tar (ustar, GNU long names, pax paths) and .zip
 * (stored and deflate, read from the central directory). Everything is read and checked in memory
 * before the first file is written, so a refused archive leaves nothing behind: no absolute paths,
 * no `..`, no symlinks, hard links or devices, no name that is both a file and a folder, at most
 * MAX_ENTRIES entries and MAX_BYTES unpacked. A write that still fails (disk full) is reported as a
 * refusal too; the caller removes the target folder. Then the rule-set root is found: the folder holding `rules/REQUEST-*.conf` (or the REQUEST-*.conf
 * files themselves).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { crc32, gunzipSync, inflateRawSync } from 'node:zlib';
import type { ProblemParams } from '../problems.ts';

export const MAX_ENTRIES = 5000;
export const MAX_BYTES = 100 * 1024 * 1024;

export interface ExtractedArchive {
  /** Absolute path of the rule-set root inside targetDir. */
  root: string;
  /** Relative paths of the files written, in archive order. */
  files: string[];
}

/** Why an archive was refused: the English sentence, and its code and parameters for a console. */
export interface ArchiveRefusal {
  error: string;
  code: ArchiveProblemCode;
  params: ProblemParams;
}

export const ARCHIVE_PROBLEM_CODES = [
  'archive_unreadable',
  'archive_no_rule_set',
  'archive_entry_escapes',
  'archive_unpack_failed',
  'archive_file_and_folder',
  'archive_not_gzip',
  'archive_type',
  'archive_too_big',
  'archive_entry_nul',
  'archive_absolute_path',
  'archive_traversal',
  'archive_too_many_entries',
  'archive_corrupt',
  'archive_link',
  'archive_entry_type',
  'archive_zip64',
  'archive_encrypted',
  'archive_compression',
] as const;
export type ArchiveProblemCode = (typeof ARCHIVE_PROBLEM_CODES)[number];

export type ExtractResult = { ok: true; value: ExtractedArchive } | ({ ok: false } & ArchiveRefusal);

interface Entry {
  path: string;
  data: Buffer;
}

class Refused extends Error {
  constructor(
    readonly code: ArchiveProblemCode,
    readonly params: ProblemParams,
    message: string,
  ) {
    super(message);
  }
}

function refusal(fileName: string, code: ArchiveProblemCode, params: ProblemParams, message: string): ExtractResult {
  return { ok: false, error: `${fileName}: ${message}`, code, params: { archive: fileName, ...params } };
}

/** Extracts `buffer` (named `fileName`, whose ending picks the format) into `targetDir`. */
export async function extractArchive(buffer: Buffer, fileName: string, targetDir: string): Promise<ExtractResult> {
  let entries: Entry[];
  try {
    entries = readArchive(buffer, fileName);
    checkLayout(entries);
  } catch (cause) {
    if (cause instanceof Refused) return refusal(fileName, cause.code, cause.params, cause.message);
    const reason = cause instanceof Error ? cause.message : String(cause);
    return refusal(fileName, 'archive_unreadable', { error: reason }, `not a readable archive (${reason})`);
  }
  const root = findRuleSetRoot(entries.map((e) => e.path));
  if (root === null) {
    return refusal(
      fileName,
      'archive_no_rule_set',
      {},
      'no rule set inside (expected a rules/ folder with REQUEST-*.conf files)',
    );
  }
  const target = resolve(targetDir);
  for (const e of entries) {
    const path = resolve(target, e.path);
    if (!path.startsWith(target + sep))
      return refusal(fileName, 'archive_entry_escapes', { name: e.path }, `entry ${e.path} leaves the target folder`);
  }
  try {
    await mkdir(target, { recursive: true });
    for (const e of entries) {
      const path = join(target, e.path);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, e.data, { mode: 0o644 });
    }
  } catch (cause) {
    const reason = cause instanceof Error && 'code' in cause ? String(cause.code) : 'write failed';
    return refusal(fileName, 'archive_unpack_failed', { error: reason }, `could not be unpacked (${reason})`);
  }
  return { ok: true, value: { root: root === '' ? target : join(target, root), files: entries.map((e) => e.path) } };
}

/**
 * Refuses a name used both for a file and for a folder (`a` and `a/b`): unpacking it could only fail
 * half-way. A file listed twice keeps its last copy, as tar does.
 */
function checkLayout(entries: readonly Entry[]): void {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const e of entries) {
    files.add(e.path);
    const parts = e.path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  for (const folder of folders) {
    if (files.has(folder))
      throw new Refused(
        'archive_file_and_folder',
        { name: folder },
        `${folder} is both a file and a folder in the archive`,
      );
  }
}

/** Reads every regular file of an archive into memory, refusing anything unsafe. */
export function readArchive(buffer: Buffer, fileName: string): Entry[] {
  const lower = fileName.toLowerCase();
  if (lower.endsWith('.zip')) return readZip(buffer);
  if (lower.endsWith('.tar.gz') || lower.endsWith('.tgz')) {
    if (buffer[0] !== 0x1f || buffer[1] !== 0x8b) throw new Refused('archive_not_gzip', {}, 'not gzip data');
    return readTar(gunzip(buffer));
  }
  if (lower.endsWith('.tar')) return readTar(buffer);
  throw new Refused('archive_type', {}, 'unsupported archive type (use .tar.gz, .tgz, .tar or .zip)');
}

function gunzip(buffer: Buffer): Buffer {
  try {
    return gunzipSync(buffer, { maxOutputLength: MAX_BYTES + 1024 * 1024 });
  } catch (cause) {
    if (cause instanceof RangeError)
      throw new Refused(
        'archive_too_big',
        { maxMb: MAX_BYTES / 1024 / 1024 },
        `unpacks to more than ${MAX_BYTES / 1024 / 1024} MB`,
      );
    throw cause;
  }
}

/** Checks and normalises an entry name; returns null for a directory entry. */
function safePath(raw: string): string | null {
  if (raw.includes('\0'))
    throw new Refused('archive_entry_nul', { name: raw }, `entry name with a NUL byte: ${JSON.stringify(raw)}`);
  const name = raw.replace(/\\/g, '/');
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name))
    throw new Refused('archive_absolute_path', { name: raw }, `absolute path ${raw}`);
  const parts = name.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new Refused('archive_traversal', { name: raw }, `path traversal in ${raw}`);
  if (parts.length === 0 || name.endsWith('/')) return null;
  return parts.join('/');
}

class Budget {
  private entries = 0;
  private bytes = 0;
  add(size: number): void {
    this.entries++;
    this.bytes += size;
    if (this.entries > MAX_ENTRIES)
      throw new Refused('archive_too_many_entries', { max: MAX_ENTRIES }, `more than ${MAX_ENTRIES} entries`);
    if (this.bytes > MAX_BYTES)
      throw new Refused(
        'archive_too_big',
        { maxMb: MAX_BYTES / 1024 / 1024 },
        `unpacks to more than ${MAX_BYTES / 1024 / 1024} MB`,
      );
  }
}

// ------------------------------------------------------------------------------------------------
// tar
// ------------------------------------------------------------------------------------------------

function readTar(tar: Buffer): Entry[] {
  const out: Entry[] = [];
  const budget = new Budget();
  let offset = 0;
  let longName: string | null = null;
  let paxPath: string | null = null;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header))
      throw new Refused('archive_corrupt', { offset }, `bad tar header checksum at offset ${offset}`);
    const size = tarNumber(header.subarray(124, 136));
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + 512;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new Refused('archive_corrupt', {}, 'truncated tar data');
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / 512) * 512;
    budget.add(size);

    if (type === 'L') {
      longName = cString(data);
      continue;
    }
    if (type === 'x') {
      paxPath = paxRecord(data, 'path') ?? paxPath;
      continue;
    }
    if (type === 'g' || type === 'K') continue;
    const magic = header.subarray(257, 262).toString('latin1');
    const prefix = magic === 'ustar' ? cString(header.subarray(345, 500)) : '';
    const short = cString(header.subarray(0, 100));
    const name = paxPath ?? longName ?? (prefix ? `${prefix}/${short}` : short);
    longName = null;
    paxPath = null;
    if (type === '2') throw new Refused('archive_link', { name }, `symbolic link ${name}`);
    if (type === '1') throw new Refused('archive_link', { name }, `hard link ${name}`);
    if (type === '5') {
      safePath(name);
      continue;
    }
    if (type !== '0' && type !== '\0' && type !== '7')
      throw new Refused(
        'archive_entry_type',
        { name, type },
        `unsupported entry type ${JSON.stringify(type)} for ${name}`,
      );
    const path = safePath(name);
    if (path !== null) out.push({ path, data: Buffer.from(data) });
  }
  return out;
}

function checksumOk(header: Buffer): boolean {
  const stored = tarNumber(header.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
  return sum === stored;
}

/** Octal (NUL/space padded) or GNU base-256 numbers. */
function tarNumber(field: Buffer): number {
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let n = (field[0] ?? 0) & 0x7f;
    for (let i = 1; i < field.length; i++) n = n * 256 + (field[i] ?? 0);
    return n;
  }
  const text = field
    .toString('latin1')
    .replace(/[\0 ]+/g, ' ')
    .trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function cString(buf: Buffer): string {
  const end = buf.indexOf(0);
  return buf.subarray(0, end < 0 ? buf.length : end).toString('utf8');
}

/** A pax extended header record (`<len> key=value\n`). */
function paxRecord(data: Buffer, key: string): string | null {
  const text = data.toString('utf8');
  let i = 0;
  while (i < text.length) {
    const space = text.indexOf(' ', i);
    if (space < 0) break;
    const len = Number(text.slice(i, space));
    if (!Number.isInteger(len) || len <= 0) break;
    const record = text.slice(space + 1, i + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0 && record.slice(0, eq) === key) return record.slice(eq + 1);
    i += len;
  }
  return null;
}

// ------------------------------------------------------------------------------------------------
// zip
// ------------------------------------------------------------------------------------------------

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

function readZip(zip: Buffer): Entry[] {
  const eocd = findEocd(zip);
  const count = zip.readUInt16LE(eocd + 10);
  const cdOffset = zip.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff)
    throw new Refused('archive_zip64', {}, 'ZIP64 archives are not supported');
  if (count > MAX_ENTRIES)
    throw new Refused('archive_too_many_entries', { max: MAX_ENTRIES }, `more than ${MAX_ENTRIES} entries`);
  const out: Entry[] = [];
  const budget = new Budget();
  let p = cdOffset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > zip.length || zip.readUInt32LE(p) !== CENTRAL)
      throw new Refused('archive_corrupt', {}, 'corrupt central directory');
    const madeBy = zip.readUInt16LE(p + 4) >> 8;
    const flags = zip.readUInt16LE(p + 8);
    const method = zip.readUInt16LE(p + 10);
    const crc = zip.readUInt32LE(p + 16);
    const compressed = zip.readUInt32LE(p + 20);
    const size = zip.readUInt32LE(p + 24);
    const nameLen = zip.readUInt16LE(p + 28);
    const extraLen = zip.readUInt16LE(p + 30);
    const commentLen = zip.readUInt16LE(p + 32);
    const external = zip.readUInt32LE(p + 38);
    const local = zip.readUInt32LE(p + 42);
    const name = zip.subarray(p + 46, p + 46 + nameLen).toString((flags & 0x800) !== 0 ? 'utf8' : 'latin1');
    p += 46 + nameLen + extraLen + commentLen;

    budget.add(size);
    const mode = external >>> 16;
    // Unix-made entries may carry their file type: only regular files and folders pass. Permission
    // bits without a type (some zip writers) are an ordinary file.
    const type = mode & S_IFMT;
    if (madeBy === 3 && type !== 0 && type !== S_IFREG && type !== S_IFDIR) {
      throw new Refused('archive_link', { name }, `${type === 0o120000 ? 'symbolic link' : 'special file'} ${name}`);
    }
    if (madeBy === 3 && type === S_IFDIR) {
      safePath(name);
      continue;
    }
    const path = safePath(name);
    if (path === null) continue;
    if ((flags & 1) !== 0) throw new Refused('archive_encrypted', { name }, `encrypted entry ${name}`);
    if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL)
      throw new Refused('archive_corrupt', { name }, `corrupt local header for ${name}`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    if (start + compressed > zip.length) throw new Refused('archive_corrupt', { name }, `truncated data for ${name}`);
    const raw = zip.subarray(start, start + compressed);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) {
      try {
        data = inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) });
      } catch (cause) {
        if (cause instanceof RangeError)
          throw new Refused('archive_corrupt', { name }, `${name} unpacks to more than it declares`);
        throw cause;
      }
    } else
      throw new Refused(
        'archive_compression',
        { name, method },
        `compression method ${method} of ${name} is not supported (stored or deflate only)`,
      );
    if (data.length !== size)
      throw new Refused('archive_corrupt', { name }, `${name}: size ${data.length} differs from the declared ${size}`);
    if (crc32(data) >>> 0 !== crc) throw new Refused('archive_corrupt', { name }, `${name}: CRC mismatch`);
    out.push({ path, data });
  }
  return out;
}

function findEocd(zip: Buffer): number {
  const min = Math.max(0, zip.length - 22 - 0xffff);
  for (let i = zip.length - 22; i >= min; i--) if (zip.readUInt32LE(i) === EOCD) return i;
  throw new Refused('archive_corrupt', {}, 'not a zip file (no end of central directory)');
}

// ------------------------------------------------------------------------------------------------
// rule-set root
// ------------------------------------------------------------------------------------------------

/**
 * The folder (relative, '' for the top) that holds `rules/REQUEST-*.conf`; failing that, the folder
 * holding REQUEST-*.conf files directly. The shallowest wins. Null when there is none.
 */
export function findRuleSetRoot(paths: readonly string[]): string | null {
  let best: string | null = null;
  let flat: string | null = null;
  for (const p of paths) {
    const m = /^(?:(.*)\/)?rules\/REQUEST-[^/]*\.conf$/.exec(p);
    if (m) {
      const root = m[1] ?? '';
      if (best === null || depth(root) < depth(best)) best = root;
      continue;
    }
    const f = /^(?:(.*)\/)?REQUEST-[^/]*\.conf$/.exec(p);
    if (f) {
      const root = f[1] ?? '';
      if (flat === null || depth(root) < depth(flat)) flat = root;
    }
  }
  return best ?? flat;
}

function depth(path: string): number {
  return path === '' ? 0 : path.split('/').length;
}
