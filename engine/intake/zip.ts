import { crc32 } from 'node:zlib';

/** One file of a zip archive. `mode`: Unix permission bits (e.g. 0o600 for a private key). */
export interface ZipEntry {
  name: string;
  data: Buffer | string;
  mode?: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** General-purpose flag bit 11: the name is UTF-8. */
const UTF8_NAMES = 0x0800;
/** Version made by: Unix (3) in the high byte, so that `mode` is honoured by unzip; spec 2.0. */
const MADE_BY_UNIX = (3 << 8) | 20;
const VERSION_NEEDED = 10;
const STORED = 0;
const REGULAR_FILE = 0o100000;

/**
 * A zip archive of stored (uncompressed, method 0) files: the certificate bundle is a few
 * kilobytes of PEM and text, so compression buys nothing, and without it the writer is a page of
 * headers. No ZIP64: each file and the whole archive stay far below 4 GiB (checked).
 */
export function zipStore(entries: readonly ZipEntry[], modified: Date = new Date()): Buffer {
  const { time, date } = dosDateTime(modified);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    if (name.length === 0 || name.length > 0xffff) throw new RangeError(`zip entry name length ${name.length}`);
    if (data.length > 0xfffffff0 || entries.length > 0xffff) throw new RangeError('zip archive too large');
    const crc = crc32(data) >>> 0;

    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL_HEADER, 0);
    local.writeUInt16LE(VERSION_NEEDED, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(STORED, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, data);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(CENTRAL_HEADER, 0);
    central.writeUInt16LE(MADE_BY_UNIX, 4);
    central.writeUInt16LE(VERSION_NEEDED, 6);
    central.writeUInt16LE(UTF8_NAMES, 8);
    central.writeUInt16LE(STORED, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    // Extra field length, comment length, disk number, internal attributes: all zero.
    central.writeUInt32LE(((REGULAR_FILE | (entry.mode ?? 0o644)) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + data.length;
    if (offset > 0xfffffff0) throw new RangeError('zip archive too large');
  }
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(END_OF_CENTRAL_DIRECTORY, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** MS-DOS time and date fields (local wall time by convention; UTC here, so the bundle is reproducible). */
function dosDateTime(at: Date): { time: number; date: number } {
  const year = Math.min(Math.max(at.getUTCFullYear(), 1980), 2107);
  return {
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | Math.floor(at.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
  };
}
