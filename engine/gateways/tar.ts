import { gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  content: string | Buffer;
  mode?: number;
}

/** Writes `value` as a NUL-padded octal field of `length` bytes (ustar numbers). */
function octal(header: Buffer, offset: number, length: number, value: number): void {
  header.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'ascii');
}

/**
 * A gzipped ustar archive of a few small files: enough for plugin bundles and certificate kits,
 * readable by `tar xzf` everywhere. Names must be relative and under 100 bytes.
 */
export function tarGz(entries: readonly TarEntry[], mtimeMs: number): Buffer {
  const blocks: Buffer[] = [];
  const mtime = Math.floor(mtimeMs / 1000);
  for (const entry of entries) {
    if (entry.name.length >= 100 || entry.name.startsWith('/') || entry.name.includes('..')) {
      throw new Error(`tar: unsupported entry name ${entry.name}`);
    }
    const data = typeof entry.content === 'string' ? Buffer.from(entry.content, 'utf8') : entry.content;
    const header = Buffer.alloc(512, 0);
    header.write(entry.name, 0, 100, 'utf8');
    octal(header, 100, 8, entry.mode ?? 0o644);
    octal(header, 108, 8, 0);
    octal(header, 116, 8, 0);
    octal(header, 124, 12, data.length);
    octal(header, 136, 12, mtime);
    header.fill(' ', 148, 156); // checksum counts as spaces while it is computed
    header.write('0', 156, 1, 'ascii');
    header.write('ustar\0', 257, 6, 'ascii');
    header.write('00', 263, 2, 'ascii');
    header.write('root', 265, 32, 'ascii');
    header.write('root', 297, 32, 'ascii');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'ascii');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512, 0));
  }
  blocks.push(Buffer.alloc(1024, 0));
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}
