import type { ErrorParams } from '#engine/shared';
import { PARSE_LIMITS, type ConfigProblemCode } from './config.ts';

/**
 * Time formats of spec 2.2, compiled once into a scanner (no regex on the hot path). Tokens:
 * YYYY (4-digit year, optional), MMM (3-letter English month, any case) or MM (2-digit month), DD
 * (the day in 2 characters, a single digit after a space as syslog writes it; a lone digit is read
 * too), hh (00-23), mm, ss. Anything else is a literal kept in place; letters are refused (a typo
 * such as HH for hh would otherwise be taken for text), except T as in ISO 8601. A fraction of a
 * second after ss (`.123`, `,5`) is read and dropped: time precision is the second (spec 8).
 */
export type TimeToken = 'YYYY' | 'MMM' | 'MM' | 'DD' | 'hh' | 'mm' | 'ss';

/** Longest token first, so MMM is not read as MM then M. */
const TOKENS: readonly TimeToken[] = ['YYYY', 'MMM', 'MM', 'DD', 'hh', 'mm', 'ss'];

type Segment = { token: TimeToken; literal?: undefined } | { token?: undefined; literal: string };

/** What a scan found, as numbers; a year of NaN when the format has none. Written in place by `read`. */
export interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** A month's 3 letters lowercased, packed in one number -> month 1-12. */
const MONTH_OF = new Map(MONTHS.map((name, i) => [packLower(name, 0), i + 1]));

/** -1 when one of the three is not ASCII (it could not be a month's letter, and would not pack). */
function packLower(text: string, at: number): number {
  if ((text.charCodeAt(at) | text.charCodeAt(at + 1) | text.charCodeAt(at + 2)) > 0x7f) return -1;
  return (
    ((text.charCodeAt(at) | 0x20) << 16) | ((text.charCodeAt(at + 1) | 0x20) << 8) | (text.charCodeAt(at + 2) | 0x20)
  );
}

const isDigit = (code: number): boolean => code >= 0x30 && code <= 0x39;
const SPACE = 0x20;

/** Two digits at `at` as a number, or -1. */
function twoDigits(text: string, at: number): number {
  const a = text.charCodeAt(at);
  const b = text.charCodeAt(at + 1);
  return isDigit(a) && isDigit(b) ? (a - 0x30) * 10 + (b - 0x30) : -1;
}

export class CompiledTimeFormat {
  readonly pattern: string;
  readonly hasYear: boolean;
  readonly #segments: readonly Segment[];

  constructor(pattern: string, segments: readonly Segment[]) {
    this.pattern = pattern;
    this.#segments = segments;
    this.hasYear = segments.some((s) => s.token === 'YYYY');
  }

  /** Reads the whole of `text` into `out`; false when it does not have the format's shape. */
  read(text: string, out: WallParts): boolean {
    out.year = Number.NaN;
    let at = 0;
    const segments = this.#segments;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as Segment;
      if (segment.literal !== undefined) {
        if (!text.startsWith(segment.literal, at)) return false;
        at += segment.literal.length;
        continue;
      }
      switch (segment.token) {
        case 'YYYY': {
          const high = twoDigits(text, at);
          const low = twoDigits(text, at + 2);
          if (high < 0 || low < 0) return false;
          out.year = high * 100 + low;
          at += 4;
          break;
        }
        case 'MMM': {
          const month = at + 3 <= text.length ? MONTH_OF.get(packLower(text, at)) : undefined;
          if (month === undefined) return false;
          out.month = month;
          at += 3;
          break;
        }
        case 'MM':
          out.month = twoDigits(text, at);
          if (out.month < 0) return false;
          at += 2;
          break;
        case 'DD': {
          const first = text.charCodeAt(at);
          const second = text.charCodeAt(at + 1);
          if (isDigit(first) && isDigit(second)) {
            out.day = (first - 0x30) * 10 + (second - 0x30);
            at += 2;
          } else if (first === SPACE && isDigit(second)) {
            out.day = second - 0x30;
            at += 2;
          } else if (isDigit(first)) {
            out.day = first - 0x30;
            at += 1;
          } else {
            return false;
          }
          break;
        }
        case 'hh':
          out.hour = twoDigits(text, at);
          if (out.hour < 0) return false;
          at += 2;
          break;
        case 'mm':
          out.minute = twoDigits(text, at);
          if (out.minute < 0) return false;
          at += 2;
          break;
        case 'ss': {
          out.second = twoDigits(text, at);
          if (out.second < 0) return false;
          at += 2;
          at = skipFraction(text, at, segments[i + 1]);
          break;
        }
        default:
          return false;
      }
    }
    return at === text.length;
  }
}

/** Past a fraction of a second at `at` (`.123`), unless the format's next literal is that text. */
function skipFraction(text: string, at: number, next: Segment | undefined): number {
  const mark = text.charCodeAt(at);
  if ((mark !== 0x2e && mark !== 0x2c) || !isDigit(text.charCodeAt(at + 1))) return at;
  if (next?.literal !== undefined && text.startsWith(next.literal, at)) return at;
  let end = at + 1;
  while (isDigit(text.charCodeAt(end))) end++;
  return end;
}

export interface TimeFormatIssue {
  code: ConfigProblemCode;
  message: string;
  params?: ErrorParams;
}

const isLetter = (char: string): boolean => (char >= 'A' && char <= 'Z') || (char >= 'a' && char <= 'z');

/** A format compiled, or why it cannot be used (each issue once). */
export function compileTimeFormat(
  pattern: string,
): { ok: true; format: CompiledTimeFormat } | { ok: false; issues: TimeFormatIssue[] } {
  if (pattern.length === 0) return { ok: false, issues: [{ code: 'time_format_empty', message: 'is required' }] };
  if (pattern.length > PARSE_LIMITS.timeFormat) {
    return {
      ok: false,
      issues: [
        {
          code: 'time_format_too_long',
          message: `must be at most ${PARSE_LIMITS.timeFormat} characters`,
          params: { maximum: PARSE_LIMITS.timeFormat },
        },
      ],
    };
  }
  const issues: TimeFormatIssue[] = [];
  const segments: Segment[] = [];
  const seen = new Set<TimeToken>();
  let literal = '';
  let at = 0;
  while (at < pattern.length) {
    const token = TOKENS.find((t) => pattern.startsWith(t, at));
    if (token) {
      if (literal) segments.push({ literal });
      literal = '';
      if (seen.has(token) || (token.startsWith('MM') && (seen.has('MM') || seen.has('MMM')))) {
        issues.push({
          code: 'time_format_repeated_token',
          message: `has ${token} more than once (each part of the time appears once)`,
          params: { token },
        });
      }
      seen.add(token);
      segments.push({ token });
      at += token.length;
      continue;
    }
    const char = pattern.charAt(at);
    if (isLetter(char) && char !== 'T') {
      let end = at;
      while (end < pattern.length && isLetter(pattern.charAt(end)) && !TOKENS.some((t) => pattern.startsWith(t, end))) {
        end++;
      }
      const text = pattern.slice(at, end);
      issues.push({
        code: 'time_format_unknown_text',
        message: `has "${text}", which is not a token: use YYYY, MMM (Jan) or MM (01), DD, hh (00-23), mm, ss, and separators such as - / : or spaces (a fraction after ss needs no token)`,
        params: { text },
      });
      at = end;
      continue;
    }
    literal += char;
    at++;
  }
  if (literal) segments.push({ literal });
  const missing = [
    seen.has('MMM') || seen.has('MM') ? null : 'MMM',
    ...(['DD', 'hh', 'mm', 'ss'] as const).filter((t) => !seen.has(t)),
  ].filter((t) => t !== null);
  // A format with unknown text lacks a token nearly always because of it (HH for hh): one problem is enough.
  if (missing.length > 0 && issues.every((i) => i.code !== 'time_format_unknown_text')) {
    issues.push({
      code: 'time_format_missing_token',
      message: `must contain ${missing.join(', ')} (a time needs the month as MMM or MM, DD, hh, mm and ss; YYYY is optional)`,
      params: { tokens: missing.join(',') },
    });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, format: new CompiledTimeFormat(pattern, segments) };
}
