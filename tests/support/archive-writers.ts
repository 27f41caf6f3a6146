/**
 * Tiny archive writers for tests that need archives no well-behaved tool makes: a name that is both a
 * file and a folder, symlinks, GNU long names, zip modes without a file type, stored or deflated.
 */
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  data?: string;
  /** '0' file (default), '5' folder, '2' symlink, 'L' GNU long name. */
  type?: string;
  link?: string;
}

function tarHeader(name: string, size: number, type: string, link = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write('0000000\0', 108, 'latin1');
  h.write('0000000\0', 116, 'latin1');
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write('00000000000\0', 136, 'latin1');
  h.write(type, 156, 'latin1');
  h.write(link, 157, 'utf8');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.fill(' ', 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

export function tar(entries: readonly TarEntry[], options: { gnuLongNames?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const pad = (b: Buffer): Buffer => Buffer.concat([b, Buffer.alloc((512 - (b.length % 512)) % 512)]);
  for (const e of entries) {
    const data = Buffer.from(e.data ?? '');
    if (options.gnuLongNames && e.name.length > 100) {
      const long = Buffer.from(`${e.name}\0`);
      parts.push(tarHeader('././@LongLink', long.length, 'L'), pad(long));
    }
    parts.push(tarHeader(e.name, data.length, e.type ?? '0', e.link), pad(data));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export interface ZipEntry {
  name: string;
  data?: string;
  store?: boolean;
  /** Unix mode to record (e.g. 0o120777 for a symlink). */
  mode?: number;
}

export function zip(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const data = Buffer.from(e.data ?? '');
    const body = e.store ? data : deflateRawSync(data);
    const method = e.store ? 0 : 8;
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((e.mode ?? (e.name.endsWith('/') ? 0o40755 : 0o100644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += local.length + name.length + body.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A gzipped tar. */
export const tarGz = (entries: readonly TarEntry[], options: { gnuLongNames?: boolean } = {}): Buffer =>
  gzipSync(tar(entries, options));
