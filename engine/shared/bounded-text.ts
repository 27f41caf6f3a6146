// Log records are built from what clients send (User-Agent, Referer, URL, probe reports). Every
// stored string is capped so one request cannot make one record, or the log store, arbitrarily
// large; a cut value ends in TRUNCATED_MARK so a reader knows it is not what the client sent.

/** Longest stored string field of a log record, in UTF-16 code units (2 KB of ASCII). */
export const MAX_LOG_FIELD = 2048;

/** Ends a value that was cut to fit. */
export const TRUNCATED_MARK = '…';

/**
 * `value` when it has at most `max` code units, else its first `max - 1` followed by the mark.
 * Never splits a surrogate pair. Cheap on the hot path: one length comparison when nothing is cut.
 */
export function capText(value: string, max: number = MAX_LOG_FIELD): string {
  if (value.length <= max) return value;
  let end = Math.max(0, max - TRUNCATED_MARK.length);
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return value.slice(0, end) + TRUNCATED_MARK;
}

export interface RecordCaps {
  /** Longest string field (default MAX_LOG_FIELD). */
  maxField?: number;
  /** Longest JSON serialisation of the whole record, in UTF-8 bytes. */
  maxBytes: number;
}

/**
 * A flat record whose string fields are capped (`capText`) and whose JSON fits in `maxBytes`: while
 * it does not, the longest string field is halved. The names of the fields that were cut are listed
 * in `_truncated`. Fields that are not strings are kept as they are.
 */
export function capRecord<T extends Record<string, unknown>>(
  record: T,
  caps: RecordCaps,
): T & { _truncated?: string[] } {
  const maxField = caps.maxField ?? MAX_LOG_FIELD;
  const out: Record<string, unknown> = { ...record };
  const cut = new Set<string>();
  for (const [name, value] of Object.entries(out)) {
    if (typeof value === 'string' && value.length > maxField) {
      out[name] = capText(value, maxField);
      cut.add(name);
    }
  }
  const size = (): number => Buffer.byteLength(JSON.stringify(cut.size > 0 ? { ...out, _truncated: [...cut] } : out));
  for (let bytes = size(); bytes > caps.maxBytes; bytes = size()) {
    let longest: string | undefined;
    let longestLength = 0;
    for (const [name, value] of Object.entries(out)) {
      if (typeof value === 'string' && value.length > longestLength) {
        longest = name;
        longestLength = value.length;
      }
    }
    // Nothing left to shorten: the record is as small as its non-string fields allow.
    if (longest === undefined || longestLength <= TRUNCATED_MARK.length) break;
    out[longest] = capText(out[longest] as string, Math.max(TRUNCATED_MARK.length, Math.floor(longestLength / 2)));
    cut.add(longest);
  }
  if (cut.size > 0) out._truncated = [...cut];
  return out as T & { _truncated?: string[] };
}
