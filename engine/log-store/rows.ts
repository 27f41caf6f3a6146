/** Row numbers of a block as an index entry stores them: ascending, delta-encoded unsigned varints. */
export function encodeRows(rows: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(rows.length * 5);
  let at = 0;
  let previous = -1;
  for (const row of rows) {
    let delta = row - previous - 1;
    previous = row;
    while (delta >= 0x80) {
      out[at++] = (delta & 0x7f) | 0x80;
      delta >>>= 7;
    }
    out[at++] = delta;
  }
  return out.subarray(0, at);
}

export function decodeRows(bytes: Uint8Array): number[] {
  const rows: number[] = [];
  let previous = -1;
  let at = 0;
  while (at < bytes.length) {
    let delta = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++]!;
      delta |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80 && at < bytes.length);
    previous += delta + 1;
    rows.push(previous);
  }
  return rows;
}
