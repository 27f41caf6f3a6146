import { PARSE_LIMITS } from './config.ts';
import type { CompiledTimeFormat, WallParts } from './time-format.ts';
import { daysInMonth, wallMs, type TimeZone } from './time-zone.ts';

/** A year-less time looks back at most this many years for one where its date exists (29 February). */
const YEARS_BACK = 8;

/**
 * A log's time text to the instant it names: read with the format, checked as a date, placed in the
 * configuration's zone. A format without a year takes the latest year that does not put the record
 * after `now` plus the tolerance, so `Dec 31 23:59:59` read just after New Year is last year's.
 */
export class LogTimeReader {
  readonly #format: CompiledTimeFormat;
  readonly #zone: TimeZone;
  /** Scratch for `read`: parsing is synchronous, so one per reader is never shared by two lines. */
  readonly #parts: WallParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };

  constructor(format: CompiledTimeFormat, zone: TimeZone) {
    this.#format = format;
    this.#zone = zone;
  }

  get pattern(): string {
    return this.#format.pattern;
  }

  /** Epoch milliseconds (a whole second), or why the text is not a time. */
  instantOf(text: string, now: number): number | 'mismatch' | 'invalid' {
    const p = this.#parts;
    if (!this.#format.read(text, p)) return 'mismatch';
    if (p.month < 1 || p.month > 12 || p.day < 1 || p.hour > 23 || p.minute > 59 || p.second > 59) return 'invalid';
    if (this.#format.hasYear) {
      if (p.year < 1000 || p.day > daysInMonth(p.year, p.month)) return 'invalid';
      return this.#zone.instantOf(wallMs(p.year, p.month, p.day, p.hour, p.minute, p.second));
    }
    if (p.day > daysInMonth(Number.NaN, p.month)) return 'invalid';
    const latest = now + PARSE_LIMITS.futureToleranceMs;
    const thisYear = new Date(now + this.#zone.offsetAt(now)).getUTCFullYear();
    for (let year = thisYear + 1; year >= thisYear - YEARS_BACK; year--) {
      if (p.day > daysInMonth(year, p.month)) continue;
      const instant = this.#zone.instantOf(wallMs(year, p.month, p.day, p.hour, p.minute, p.second));
      if (instant <= latest) return instant;
    }
    return 'invalid';
  }
}
