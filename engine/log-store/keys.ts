/**
 * Record keys sort by log name, then time, then sequence: `<log>\x00<8-byte BE ms><4-byte BE seq>`,
 * so one log's time range is one contiguous range scan.
 */
const SEPARATOR = 0x00;

export function recordKey(log: string, timestamp: number, seq: number): Buffer {
  const name = Buffer.from(log, 'utf8');
  const key = Buffer.allocUnsafe(name.length + 1 + 8 + 4);
  name.copy(key, 0);
  key[name.length] = SEPARATOR;
  key.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(timestamp))), name.length + 1);
  key.writeUInt32BE(seq >>> 0, name.length + 9);
  return key;
}

export function rangeBounds(log: string, from: number, to: number): { gte: Buffer; lt: Buffer } {
  return { gte: recordKey(log, from, 0), lt: recordKey(log, to, 0) };
}
