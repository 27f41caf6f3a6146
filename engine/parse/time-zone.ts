/**
 * Wall-clock times of an IANA time zone to instants, with the zone's rules read from Intl (ICU's
 * tzdata, shipped with Node) instead of a dependency. Intl is slow (a `formatToParts` costs
 * microseconds), so offsets are cached per quarter hour: every transition since 1970 falls on a
 * quarter hour, in UTC and in wall-clock time alike, so one offset holds for a whole bucket.
 */
const MINUTE = 60 * 1000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const QUARTER_HOUR = 15 * MINUTE;
/** Buckets kept per cache; logs arrive roughly in time order, so a few suffice and this is generous. */
const CACHE_MAX = 4096;

/** Days from 1970-01-01 to a proleptic Gregorian date (any year, unlike Date.UTC's 0-99 quirk). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

/** A wall-clock time as milliseconds, read as if it were UTC. */
export function wallMs(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  return daysFromCivil(year, month, day) * DAY + hour * HOUR + minute * MINUTE + second * 1000;
}

const isLeap = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Days in a month (1-12) of a year; February has 29 when the year is unknown (NaN). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return Number.isNaN(year) || isLeap(year) ? 29 : 28;
  return MONTH_DAYS[month - 1] ?? 0;
}

export class TimeZone {
  readonly name: string;
  readonly #format: Intl.DateTimeFormat;
  /** UTC quarter hour -> offset (wall minus UTC) in force. */
  readonly #offsets = new Map<number, number>();
  /** Wall-clock quarter hour -> offset that turns it into an instant. */
  readonly #wallOffsets = new Map<number, number>();

  constructor(format: Intl.DateTimeFormat) {
    this.#format = format;
    this.name = format.resolvedOptions().timeZone;
  }

  /** The zone's offset (wall-clock minus UTC, in ms) at an instant. */
  offsetAt(instant: number): number {
    const key = Math.floor(instant / QUARTER_HOUR);
    let offset = this.#offsets.get(key);
    if (offset === undefined) {
      offset = this.#readOffset(key * QUARTER_HOUR);
      remember(this.#offsets, key, offset);
    }
    return offset;
  }

  /**
   * The instant a wall-clock time (`wallMs`) names here. As Temporal's `compatible`: a time that occurs
   * twice (the hour repeated when summer time ends) is the earlier one; a time that never occurs (the
   * hour skipped when it starts) is moved forward by the gap, so 02:30 becomes 03:30.
   */
  instantOf(wall: number): number {
    const key = Math.floor(wall / QUARTER_HOUR);
    let offset = this.#wallOffsets.get(key);
    if (offset === undefined) {
      offset = this.#resolveOffset(key * QUARTER_HOUR);
      remember(this.#wallOffsets, key, offset);
    }
    return wall - offset;
  }

  #resolveOffset(wall: number): number {
    // No zone changes its offset twice within two days, so the offsets a day either side are the only candidates.
    const before = this.offsetAt(wall - DAY);
    const after = this.offsetAt(wall + DAY);
    if (before === after) return before;
    if (this.offsetAt(wall - before) === before) return before;
    if (this.offsetAt(wall - after) === after) return after;
    return before;
  }

  #readOffset(instant: number): number {
    let year = 0;
    let month = 0;
    let day = 0;
    let hour = 0;
    let minute = 0;
    let second = 0;
    for (const part of this.#format.formatToParts(instant)) {
      const value = Number(part.value);
      switch (part.type) {
        case 'year':
          year = value;
          break;
        case 'month':
          month = value;
          break;
        case 'day':
          day = value;
          break;
        case 'hour':
          hour = value === 24 ? 0 : value;
          break;
        case 'minute':
          minute = value;
          break;
        case 'second':
          second = value;
          break;
        default:
          break;
      }
    }
    return wallMs(year, month, day, hour, minute, second) - instant;
  }
}

function remember(cache: Map<number, number>, key: number, offset: number): void {
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, offset);
}

/** Zones by the name they were asked for: a handful per engine, each with its caches. */
const ZONES = new Map<string, TimeZone>();

/** The zone named `name` (IANA, e.g. `Asia/Shanghai`, `UTC`), or null when Intl does not know it. */
export function timeZoneNamed(name: string): TimeZone | null {
  const known = ZONES.get(name);
  if (known) return known;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  } catch {
    return null;
  }
  const zone = new TimeZone(format);
  ZONES.set(name, zone);
  return zone;
}
