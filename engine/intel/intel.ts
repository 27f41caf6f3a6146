// The Intel service: databases loaded once by createIntel, then a synchronous lookup per request.
// Both halves of a lookup are cached in bounded LRUs keyed by the raw input (user agents and
// client addresses repeat), so a warm lookup is two map hits and one result object.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { Lru, RampartError } from '#engine/shared';
import { loadAsnDatabase, type AsnDatabase, type AsnRecord } from './asn-table.ts';
import type { CrawlerType } from '#engine/shared';
import { BotClassifier, loadCrawlerList } from './bot-classifier.ts';
import { GeoDatabase, type GeoRecord } from './geo-db.ts';
import { MAX_IP_TEXT, ParsedIp, classifyV4, classifyV6, parseIp, v4Text } from './ip-address.ts';
import { EMPTY_UA, analyseUserAgent, type UaClassification, type UaIntel } from './ua-analyser.ts';

/**
 * Closed set. `loopback`, `private` (RFC 1918, RFC 6598 shared space, IPv6 unique local),
 * `link_local` and `reserved` (unspecified, multicast, documentation, benchmarking, 240/4) come
 * from the address alone. A public address is `data_center` when its network is a hosting, cloud
 * or CDN provider, `residential_or_business` when it is any other network, `unknown` when the ASN
 * database has no network for it. `invalid` is input that is not an IP address.
 */
export const IP_CLASSIFICATIONS = [
  'loopback',
  'private',
  'link_local',
  'reserved',
  'data_center',
  'residential_or_business',
  'unknown',
  'invalid',
] as const;
export type IpClassification = (typeof IP_CLASSIFICATIONS)[number];

/** What the intelligence store knows about one request. Unknown text is '', an unknown ASN 0. */
export interface IntelFields {
  ip_city: string;
  /** ISO 3166-1 alpha-2 country code. */
  ip_country: string;
  ip_asn: number;
  ip_org: string;
  ip_classification: IpClassification;
  ip_data_center_name: string;
  ua_classification: UaClassification;
  ua_family: string;
  ua_os: string;
  ua_version_major: string;
  bot_type: CrawlerType | null;
  bot_name: string;
}

/** Every sub-field of `_intelligence_result.intel`, by name (events test them by name). */
export const INTEL_FIELD_NAMES = [
  'ip_city',
  'ip_country',
  'ip_asn',
  'ip_org',
  'ip_classification',
  'ip_data_center_name',
  'ua_classification',
  'ua_family',
  'ua_os',
  'ua_version_major',
  'bot_type',
  'bot_name',
] as const satisfies readonly (keyof IntelFields)[];
// Adding a field to IntelFields without naming it above fails here.
const _allNamed: Exclude<keyof IntelFields, (typeof INTEL_FIELD_NAMES)[number]> extends never ? true : never = true;

/**
 * The `_intelligence_result` JSON of a log record: its sub-fields are `intel.<name>`. Shared between
 * lookups of the same address and user agent: read only.
 */
export interface IntelResult {
  readonly intel: Readonly<IntelFields>;
}

/** The flat access-log fields of spec 2.3 that come from the intelligence result. */
export interface IntelAccessLogFields {
  ip_city: string;
  ip_classification: IpClassification;
  ip_data_center_name: string;
  ua_classification: UaClassification;
  ua_family: string;
  ua_os: string;
  ua_version_major: string;
  _intelligence_result: IntelResult;
}

const optionsSchema = z.object({
  /** City MMDB files (IPv4 and/or IPv6), consulted in order. None: ip_city stays ''. */
  cityDb: z.array(z.string().min(1)).readonly().default([]),
  /** Country MMDB file. Default: the bundled geo-whois-asn-country database. */
  countryDb: z.string().min(1).optional(),
  /** ASN data: an ip-location-db CSV folder or a GeoLite2-ASN-layout .mmdb file. Default: bundled. */
  asnDb: z.string().min(1).optional(),
  uaCacheSize: z.number().int().positive().default(10_000),
  ipCacheSize: z.number().int().positive().default(50_000),
  /** Longer user agents are cut to this length before parsing and caching. */
  maxUserAgentLength: z.number().int().min(16).max(8192).default(512),
});
export type IntelOptions = z.input<typeof optionsSchema>;

export interface Intel {
  /** Never throws; bounded time for any input. */
  lookup(ip: string, userAgent: string): IntelResult;
  /** Entries held by the two caches, for diagnostics and tests. */
  cacheSizes(): { userAgents: number; addresses: number };
}

interface IpIntel {
  readonly classification: IpClassification;
  readonly city: string;
  readonly country: string;
  readonly asn: number;
  readonly org: string;
  readonly dataCentre: string;
}

function rangeOnly(classification: IpClassification): IpIntel {
  return Object.freeze({ classification, city: '', country: '', asn: 0, org: '', dataCentre: '' });
}

const INVALID_IP = rangeOnly('invalid');
const RANGE_RESULTS: Readonly<Record<'loopback' | 'private' | 'link_local' | 'reserved', IpIntel>> = {
  loopback: rangeOnly('loopback'),
  private: rangeOnly('private'),
  link_local: rangeOnly('link_local'),
  reserved: rangeOnly('reserved'),
};

class IntelService implements Intel {
  private readonly uaCache: Lru<string, UaIntel>;
  private readonly ipCache: Lru<string, IpIntel>;
  private readonly scratch = new ParsedIp();
  /** The last answer built for each cached user agent, with the address record it was built for. */
  private readonly lastResult = new WeakMap<UaIntel, { ip: IpIntel; result: IntelResult }>();

  constructor(
    private readonly asn: AsnDatabase,
    private readonly country: GeoDatabase,
    private readonly city: GeoDatabase | null,
    private readonly bots: BotClassifier,
    private readonly opts: z.output<typeof optionsSchema>,
  ) {
    this.uaCache = new Lru(opts.uaCacheSize);
    this.ipCache = new Lru(opts.ipCacheSize);
  }

  lookup(ip: string, userAgent: string): IntelResult {
    const a = this.ipIntel(ip);
    const u = this.uaIntel(userAgent);
    // A client sends many requests in a row: the answer for the same cached pair is handed out again.
    const last = this.lastResult.get(u);
    if (last !== undefined && last.ip === a) return last.result;
    const result: IntelResult = Object.freeze({
      intel: Object.freeze({
        ip_city: a.city,
        ip_country: a.country,
        ip_asn: a.asn,
        ip_org: a.org,
        ip_classification: a.classification,
        ip_data_center_name: a.dataCentre,
        ua_classification: u.classification,
        ua_family: u.family,
        ua_os: u.os,
        ua_version_major: u.versionMajor,
        bot_type: u.botType,
        bot_name: u.botName,
      }),
    });
    this.lastResult.set(u, { ip: a, result });
    return result;
  }

  cacheSizes(): { userAgents: number; addresses: number } {
    return { userAgents: this.uaCache.size, addresses: this.ipCache.size };
  }

  private uaIntel(raw: string): UaIntel {
    if (typeof raw !== 'string' || raw.length === 0) return EMPTY_UA;
    const ua = raw.length > this.opts.maxUserAgentLength ? raw.slice(0, this.opts.maxUserAgentLength) : raw;
    let hit = this.uaCache.get(ua);
    if (hit === undefined) {
      try {
        hit = analyseUserAgent(ua, this.bots);
      } catch {
        hit = UNKNOWN_UA;
      }
      this.uaCache.set(ua, hit);
    }
    return hit;
  }

  private ipIntel(ip: string): IpIntel {
    if (typeof ip !== 'string' || ip.length === 0 || ip.length > MAX_IP_TEXT) return INVALID_IP;
    let hit = this.ipCache.get(ip);
    if (hit === undefined) {
      try {
        hit = this.resolveIp(ip);
      } catch {
        hit = UNKNOWN_IP;
      }
      this.ipCache.set(ip, hit);
    }
    return hit;
  }

  private resolveIp(ip: string): IpIntel {
    const p = this.scratch;
    const kind = parseIp(ip, p);
    if (kind === 0) return INVALID_IP;
    let asn: AsnRecord | null;
    let text: string;
    if (kind === 4) {
      const range = classifyV4(p.v4);
      if (range !== 'public') return RANGE_RESULTS[range];
      text = v4Text(p.v4);
      asn = this.asn.findV4(p.v4, text);
    } else {
      const range = classifyV6(p.groups);
      if (range !== 'public') return RANGE_RESULTS[range];
      text = plainV6Text(ip);
      asn = this.asn.findV6(p.groups, text);
    }
    const place: GeoRecord | null = this.city?.find(kind, text) ?? null;
    const country =
      place !== null && place.country !== '' ? place.country : (this.country.find(kind, text)?.country ?? '');
    return Object.freeze({
      classification: asn === null ? 'unknown' : asn.dataCentre !== '' ? 'data_center' : 'residential_or_business',
      city: place?.city ?? '',
      country,
      asn: asn?.asn ?? 0,
      org: asn?.org ?? '',
      dataCentre: asn?.dataCentre ?? '',
    });
  }
}

const UNKNOWN_UA: UaIntel = Object.freeze({ ...EMPTY_UA, classification: 'unknown' });
const UNKNOWN_IP = rangeOnly('unknown');

/** An IPv6 address without brackets or zone id, as the MMDB reader wants it. */
function plainV6Text(ip: string): string {
  let s = ip;
  if (s.charCodeAt(0) === 91) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  return zone === -1 ? s : s.slice(0, zone);
}

function packageDir(name: string): string {
  return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));
}

/** Loads the databases (a second or two for the bundled ASN data) and returns the service. */
export async function createIntel(options: IntelOptions = {}): Promise<Intel> {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RampartError('SETTINGS_INVALID', `Intelligence options are invalid: ${issue?.message ?? ''}`, {
      field: issue?.path.join('.') ?? '',
    });
  }
  const opts = parsed.data;
  const asnPath = opts.asnDb ?? packageDir('@ip-location-db/asn');
  const countryPath =
    opts.countryDb ?? join(packageDir('@ip-location-db/geo-whois-asn-country-mmdb'), 'geo-whois-asn-country.mmdb');
  const [asn, country, city] = await Promise.all([
    loading('RAMPART_INTEL_ASN_DB', asnPath, loadAsnDatabase(asnPath)),
    loading('RAMPART_INTEL_COUNTRY_DB', countryPath, GeoDatabase.load([countryPath])),
    opts.cityDb.length === 0
      ? Promise.resolve(null)
      : loading('RAMPART_INTEL_CITY_DB', opts.cityDb.join(', '), GeoDatabase.load(opts.cityDb)),
  ]);
  return new IntelService(asn, country, city, new BotClassifier(loadCrawlerList()), opts);
}

/** Turns a failed load into an error that names the setting and the file to fix. */
async function loading<T>(setting: string, path: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (cause) {
    throw new RampartError(
      'SETTINGS_INVALID',
      `Cannot read the intelligence database at ${path}: check that ${setting} names a readable file in the expected format.`,
      { field: setting, params: { path }, cause },
    );
  }
}

/** The flat access-log fields; `_intelligence_result` is the result itself (no copy). */
export function accessLogFields(result: IntelResult): IntelAccessLogFields {
  const i = result.intel;
  return {
    ip_city: i.ip_city,
    ip_classification: i.ip_classification,
    ip_data_center_name: i.ip_data_center_name,
    ua_classification: i.ua_classification,
    ua_family: i.ua_family,
    ua_os: i.ua_os,
    ua_version_major: i.ua_version_major,
    _intelligence_result: result,
  };
}
