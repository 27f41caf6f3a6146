// The ASN database: which autonomous system announces an address, and that network's registered
// organisation. Two layouts are read: the ip-location-db CSV folder (asn-ipv4-num.csv, asn-ipv6.csv:
// "start,end,asn,organisation", inclusive ranges, sorted by start) and an MMDB file in the GeoLite2-ASN
// layout (autonomous_system_number, autonomous_system_organization) that an operator may supply.
//
// The CSV rows go into typed arrays searched by bisection: about 0.4 million IPv4 and 0.1 million
// IPv6 ranges take a few megabytes, and a lookup allocates nothing. IPv6 ranges are compared on
// their upper 64 bits only: routed IPv6 prefixes are never longer than /64 (in practice /48).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Reader, type Response } from 'mmdb-lib';
import { dataCentreName } from './data-centres.ts';
import { ParsedIp, parseIp } from './ip-address.ts';

/** One network; shared by every range the network announces, never copied per request. */
export interface AsnRecord {
  readonly asn: number;
  readonly org: string;
  /** Data-centre (hosting, cloud, CDN) name, '' for an access network. */
  readonly dataCentre: string;
}

export interface AsnDatabase {
  /** The network of an IPv4 address (unsigned 32-bit) or null. `text` is its dotted form. */
  findV4(ip: number, text: string): AsnRecord | null;
  /** The network of an IPv6 address given as eight groups, or null. `text` is its text form. */
  findV6(groups: Uint16Array, text: string): AsnRecord | null;
}

class RecordTable {
  readonly records: AsnRecord[] = [];
  private readonly index = new Map<string, number>();

  intern(asn: number, org: string): number {
    let i = this.index.get(`${asn}\t${org}`);
    if (i === undefined) {
      // `org` is a slice of the whole CSV text, which a kept slice keeps alive (30 MB): a copy is kept.
      const own = Buffer.from(org, 'utf8').toString('utf8');
      i = this.records.length;
      this.records.push(Object.freeze({ asn, org: own, dataCentre: dataCentreName(asn, own) }));
      this.index.set(`${asn}\t${own}`, i);
    }
    return i;
  }
}

/** Reads one CSV line's fields from `text` at `pos`; a field may be quoted with "" escapes. */
class CsvCursor {
  pos = 0;
  constructor(readonly text: string) {}

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  /** Steps over an empty line; true when there was one. */
  skipBlankLine(): boolean {
    const c = this.text.charCodeAt(this.pos);
    if (c === 10) this.pos++;
    else if (c === 13 && this.text.charCodeAt(this.pos + 1) === 10) this.pos += 2;
    else return false;
    return true;
  }

  field(): string {
    const t = this.text;
    if (t.charCodeAt(this.pos) === 34 /* " */) {
      let out = '';
      let i = this.pos + 1;
      for (;;) {
        const q = t.indexOf('"', i);
        if (q === -1) throw new Error('unterminated quote');
        out += t.slice(i, q);
        if (t.charCodeAt(q + 1) === 34) {
          out += '"';
          i = q + 2;
        } else {
          this.pos = q + 1;
          break;
        }
      }
      this.skipSeparator();
      return out;
    }
    let end = this.pos;
    while (end < t.length) {
      const c = t.charCodeAt(end);
      if (c === 44 || c === 10 || c === 13) break;
      end++;
    }
    const out = t.slice(this.pos, end);
    this.pos = end;
    this.skipSeparator();
    return out;
  }

  /** After a field: a comma stays inside the line; a line end is consumed. */
  private skipSeparator(): void {
    const c = this.text.charCodeAt(this.pos);
    if (c === 44) this.pos++;
    else {
      if (c === 13) this.pos++;
      if (this.text.charCodeAt(this.pos) === 10) this.pos++;
    }
  }

  lineEnded(): boolean {
    const c = this.text.charCodeAt(this.pos - 1);
    return c === 10 || this.pos >= this.text.length;
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n + 1;
}

class CsvAsnDatabase implements AsnDatabase {
  private v4Count = 0;
  private v4Start = new Uint32Array(0);
  private v4End = new Uint32Array(0);
  private v4Rec = new Uint32Array(0);
  private v6Count = 0;
  private v6StartHi = new Uint32Array(0);
  private v6StartLo = new Uint32Array(0);
  private v6EndHi = new Uint32Array(0);
  private v6EndLo = new Uint32Array(0);
  private v6Rec = new Uint32Array(0);
  private readonly table = new RecordTable();

  loadV4(text: string): void {
    const capacity = countLines(text);
    this.v4Start = new Uint32Array(capacity);
    this.v4End = new Uint32Array(capacity);
    this.v4Rec = new Uint32Array(capacity);
    const csv = new CsvCursor(text);
    let n = 0;
    while (!csv.atEnd()) {
      if (csv.skipBlankLine()) continue;
      const start = Number(csv.field());
      const end = Number(csv.field());
      const asn = Number(csv.field());
      const org = csv.lineEnded() ? '' : restOfLine(csv);
      if (!Number.isInteger(start) || !Number.isInteger(end) || !Number.isInteger(asn)) continue;
      this.v4Start[n] = start;
      this.v4End[n] = end;
      this.v4Rec[n] = this.table.intern(asn, org);
      n++;
    }
    this.v4Count = n;
  }

  loadV6(text: string): void {
    const capacity = countLines(text);
    this.v6StartHi = new Uint32Array(capacity);
    this.v6StartLo = new Uint32Array(capacity);
    this.v6EndHi = new Uint32Array(capacity);
    this.v6EndLo = new Uint32Array(capacity);
    this.v6Rec = new Uint32Array(capacity);
    const csv = new CsvCursor(text);
    const ip = new ParsedIp();
    let n = 0;
    while (!csv.atEnd()) {
      if (csv.skipBlankLine()) continue;
      const start = csv.field();
      const end = csv.field();
      const asn = Number(csv.field());
      const org = csv.lineEnded() ? '' : restOfLine(csv);
      if (parseIp(start, ip) !== 6) continue;
      this.v6StartHi[n] = hi64(ip.groups);
      this.v6StartLo[n] = lo64(ip.groups);
      if (parseIp(end, ip) !== 6 || !Number.isInteger(asn)) continue;
      this.v6EndHi[n] = hi64(ip.groups);
      this.v6EndLo[n] = lo64(ip.groups);
      this.v6Rec[n] = this.table.intern(asn, org);
      n++;
    }
    this.v6Count = n;
  }

  findV4(ip: number): AsnRecord | null {
    const starts = this.v4Start;
    let lo = 0;
    let hi = this.v4Count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((starts[mid] ?? 0) <= ip) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0 || ip > (this.v4End[found] ?? 0)) return null;
    return this.table.records[this.v4Rec[found] ?? 0] ?? null;
  }

  findV6(groups: Uint16Array): AsnRecord | null {
    const h = hi64(groups);
    const l = lo64(groups);
    let lo = 0;
    let hi = this.v6Count - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const sh = this.v6StartHi[mid] ?? 0;
      if (sh < h || (sh === h && (this.v6StartLo[mid] ?? 0) <= l)) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return null;
    const eh = this.v6EndHi[found] ?? 0;
    if (h > eh || (h === eh && l > (this.v6EndLo[found] ?? 0))) return null;
    return this.table.records[this.v6Rec[found] ?? 0] ?? null;
  }
}

/** The organisation is the last field and may itself hold commas inside quotes. */
function restOfLine(csv: CsvCursor): string {
  const org = csv.field();
  // Tolerate stray extra fields: skip to the line end.
  while (!csv.lineEnded() && !csv.atEnd()) csv.field();
  return org;
}

function hi64(g: Uint16Array): number {
  return (((g[0] ?? 0) << 16) | (g[1] ?? 0)) >>> 0;
}

function lo64(g: Uint16Array): number {
  return (((g[2] ?? 0) << 16) | (g[3] ?? 0)) >>> 0;
}

interface MmdbAsnRecord {
  autonomous_system_number?: number;
  autonomous_system_organization?: string;
}

class MmdbAsnDatabase implements AsnDatabase {
  private readonly table = new RecordTable();
  constructor(private readonly reader: Reader<Response>) {}

  private find(text: string): AsnRecord | null {
    // Decoded data is untyped at run time; read it as the layout it may have.
    const r = this.reader.get(text) as MmdbAsnRecord | null;
    const asn = r?.autonomous_system_number;
    if (asn === undefined) return null;
    return this.table.records[this.table.intern(asn, r?.autonomous_system_organization ?? '')] ?? null;
  }

  findV4(_ip: number, text: string): AsnRecord | null {
    return this.find(text);
  }

  findV6(_groups: Uint16Array, text: string): AsnRecord | null {
    return this.reader.metadata.ipVersion === 6 ? this.find(text) : null;
  }
}

/** Loads the CSV folder, or an MMDB file when `path` ends in `.mmdb`. Throws on unreadable data. */
export async function loadAsnDatabase(path: string): Promise<AsnDatabase> {
  if (path.endsWith('.mmdb')) {
    return new MmdbAsnDatabase(new Reader<Response>(await readFile(path)));
  }
  const db = new CsvAsnDatabase();
  const [v4, v6] = await Promise.all([
    readFile(join(path, 'asn-ipv4-num.csv'), 'utf8'),
    readFile(join(path, 'asn-ipv6.csv'), 'utf8'),
  ]);
  db.loadV4(v4);
  db.loadV6(v6);
  return db;
}
