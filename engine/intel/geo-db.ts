// Country and city databases in the MaxMind DB format, read with mmdb-lib from memory. Two record
// layouts are understood: ip-location-db's flat one ({ city, country_code }) and the GeoIP2 one
// ({ city: { names: { en } }, country: { iso_code } }), so an operator can point the appliance at
// either. A file's metadata says whether it holds IPv4 or IPv6 ranges; an IPv4-only file is never
// asked about an IPv6 address (its tree would answer with nonsense).
import { readFile } from 'node:fs/promises';
import { Reader, type Response } from 'mmdb-lib';
import { Lru } from '#engine/shared';

export interface GeoRecord {
  readonly city: string;
  readonly country: string;
}

interface RawGeo {
  city?: string | { names?: Record<string, string> };
  country_code?: string;
  country?: { iso_code?: string };
}

const EMPTY: GeoRecord = Object.freeze({ city: '', country: '' });

/** Decoded records per data offset: many addresses share a record, so this spares re-decoding. */
const RECORD_CACHE_SIZE = 20_000;

export class GeoDatabase {
  /** Normalised records, keyed by the decoded object that mmdb-lib's cache hands back again. */
  private readonly normalised = new WeakMap<object, GeoRecord>();

  private constructor(private readonly readers: readonly Reader<Response>[]) {}

  static async load(paths: readonly string[]): Promise<GeoDatabase> {
    const buffers = await Promise.all(paths.map((p) => readFile(p)));
    return new GeoDatabase(
      buffers.map((b) => new Reader<Response>(b, { cache: new Lru<number | string, unknown>(RECORD_CACHE_SIZE) })),
    );
  }

  /** The record for an address already validated as IPv`version`, or null. */
  find(version: 4 | 6, text: string): GeoRecord | null {
    for (const reader of this.readers) {
      if (version === 6 && reader.metadata.ipVersion === 4) continue;
      // Decoded data is untyped at run time; both layouts are read defensively.
      const raw = reader.get(text) as RawGeo | null;
      if (raw !== null) return this.normalise(raw);
    }
    return null;
  }

  private normalise(raw: RawGeo): GeoRecord {
    let rec = this.normalised.get(raw);
    if (rec === undefined) {
      const city = typeof raw.city === 'string' ? raw.city : (raw.city?.names?.['en'] ?? '');
      const country = raw.country_code ?? raw.country?.iso_code ?? '';
      rec = city === '' && country === '' ? EMPTY : Object.freeze({ city, country });
      this.normalised.set(raw, rec);
    }
    return rec;
  }
}
