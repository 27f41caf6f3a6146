/**
 * Where a record is: its block (second, sequence) and row. Newest first is descending order of
 * (second, seq, row), stable while records arrive; ids and cursors carry a position.
 */
import { createHash } from 'node:crypto';

export interface Position {
  second: number;
  seq: number;
  row: number;
}

/** Negative when a comes before b in newest-first order (a is newer). */
export function newestFirst(a: Position, b: Position): number {
  return b.second - a.second || b.seq - a.seq || b.row - a.row;
}

const ID_PATTERN = /^(.+)~(\d{1,16})~(\d{1,10})~(\d{1,6})$/;

export function recordId(log: string, p: Position): string {
  return Buffer.from(`${log}~${p.second}~${p.seq}~${p.row}`, 'utf8').toString('base64url');
}

export function parseRecordId(id: string): { log: string; position: Position } | null {
  if (id.length > 512 || !/^[A-Za-z0-9_-]+$/.test(id)) return null;
  const m = ID_PATTERN.exec(Buffer.from(id, 'base64url').toString('utf8'));
  if (!m) return null;
  return { log: m[1]!, position: { second: Number(m[2]), seq: Number(m[3]), row: Number(m[4]) } };
}

/** A query's identity for its cursors: the log, the range as asked and the filter. */
export function queryHash(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}

export function encodeCursor(query: string, p: Position): string {
  return Buffer.from(JSON.stringify([query, p.second, p.seq, p.row]), 'utf8').toString('base64url');
}

/** The position a cursor continues after, or why it cannot be used for this query. */
export function decodeCursor(cursor: string, query: string): Position | 'malformed' | 'other_query' {
  if (cursor.length > 512 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return 'malformed';
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 4) return 'malformed';
    const [q, second, seq, row] = parsed as unknown[];
    if (typeof q !== 'string' || ![second, seq, row].every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
      return 'malformed';
    if (q !== query) return 'other_query';
    return { second: second as number, seq: seq as number, row: row as number };
  } catch {
    return 'malformed';
  }
}
