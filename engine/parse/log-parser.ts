import { capText, type Result } from '#engine/shared';
import { checkConfig, type FieldPlan, type ParserPlan } from './check-config.ts';
import { PARSE_LIMITS, type ConfigProblem, type KeyTarget, type LogParseConfig } from './config.ts';
import { parseFailure, type JsonKind, type ParseFailure } from './failures.ts';
import { fromJson, fromText, valueAt } from './values.ts';

/**
 * A parsed line: `_timestamp` (epoch ms, a whole second), the configured fields that were found, in
 * their types, and the record's own fields. An optional field that is missing is absent.
 */
export type ParsedRecord = Readonly<Record<string, string | number>> & {
  readonly _timestamp: number;
  readonly parsed: 1;
  readonly log_setting_id: string;
  readonly raw_data: string;
  readonly log_id?: string;
};

export type ParseOutcome = { ok: true; record: ParsedRecord } | ParseFailure;

export interface ParseContext {
  /** The arrival moment (epoch ms): the time in `current` mode, the limit of year inference otherwise. */
  now: number;
  /** Where the line came from (`<topic>-<partition>-<offset>` for Kafka). */
  logId?: string;
}

export interface LogParser {
  /** The configuration's id, written to every record as `log_setting_id`. */
  readonly id: string;
  /** The configured field names, in order. */
  readonly fieldNames: readonly string[];
  readonly keyFields: Readonly<Partial<Record<KeyTarget, string>>>;
  readonly intelligence: boolean;
  /** One received line to a record or the reason it is not one. Never throws. */
  parse(line: string, context: ParseContext): ParseOutcome;
}

/** Checks a configuration and compiles it once; the parser then runs per line. */
export function compileParser(config: LogParseConfig): Result<LogParser, readonly ConfigProblem[]> {
  const checked = checkConfig(config);
  if (!checked.ok) return { ok: false, error: checked.problems };
  const plan = checked.plan;
  return {
    ok: true,
    value: {
      id: plan.id,
      fieldNames: plan.fieldNames,
      keyFields: plan.keyFields,
      intelligence: plan.intelligence,
      parse: (line, context) => {
        try {
          return parseLine(plan, line, context);
        } catch (error) {
          // Nothing above is expected to throw; a line must still end as a failure, not an exception.
          return parseFailure('parse_error', { detail: error instanceof Error ? error.message : String(error) });
        }
      },
    },
  };
}

/** Anything but whitespace: a line of only spaces is empty. */
const VISIBLE = /\S/;

function parseLine(plan: ParserPlan, line: string, context: ParseContext): ParseOutcome {
  if (line.length > PARSE_LIMITS.line) {
    return parseFailure('line_too_long', { maximum: PARSE_LIMITS.line, length: line.length });
  }
  if (!VISIBLE.test(line)) return parseFailure('line_empty');
  // A text log never holds NUL; a line that does is binary data, not worth a record.
  if (line.includes('\0')) return parseFailure('line_binary');

  let object: object | null = null;
  if (plan.templateType === 'json') {
    const parsed = parseObject(line);
    if (!parsed.ok) return parsed;
    object = parsed.object;
  }

  // One run per distinct pattern, only for the patterns a line needs.
  const matches = new Matches(plan.regexes, line);

  const values: (string | number | undefined)[] = [];
  for (const field of plan.fields) {
    const value = extract(field, object, matches);
    if (value === undefined && field.required) {
      return parseFailure('required_field_missing', { field: field.name }, field.name);
    }
    values.push(value);
  }

  let timestamp: number;
  const time = plan.time;
  if (time.mode === 'current') {
    timestamp = context.now - (((context.now % 1000) + 1000) % 1000);
  } else {
    let text: string | undefined;
    let source: string;
    if (time.mode === 'regex') {
      text = matches.of(time.regex)?.[time.group];
      source = time.source;
    } else {
      const value = valueAt(object as object, time.path);
      text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
      source = time.path.source;
    }
    if (text === undefined || text === '') return parseFailure('time_missing', { source });
    const instant = time.reader.instantOf(text, context.now);
    if (instant === 'mismatch') return parseFailure('time_format_mismatch', { text, format: time.reader.pattern });
    if (instant === 'invalid') return parseFailure('time_invalid', { text });
    timestamp = instant;
  }

  const record: Record<string, string | number> = { _timestamp: timestamp };
  for (let i = 0; i < plan.fields.length; i++) {
    const value = values[i];
    if (value !== undefined) record[(plan.fields[i] as FieldPlan).name] = value;
  }
  record.parsed = 1;
  record.log_setting_id = plan.id;
  if (context.logId !== undefined) record.log_id = context.logId;
  record.raw_data = capText(line, PARSE_LIMITS.rawData);
  return { ok: true, record: record as ParsedRecord };
}

/** A line's match of each pattern, run on first use (a class, not a closure per line: this is the ingest path). */
class Matches {
  readonly #found: (RegExpExecArray | null | undefined)[];
  constructor(
    private readonly regexes: readonly RegExp[],
    private readonly line: string,
  ) {
    this.#found = new Array<undefined>(regexes.length);
  }

  of(index: number): RegExpExecArray | null {
    let match = this.#found[index];
    if (match === undefined) this.#found[index] = match = (this.regexes[index] as RegExp).exec(this.line);
    return match;
  }
}

function extract(field: FieldPlan, object: object | null, matches: Matches): string | number | undefined {
  if (field.kind === 'regex') {
    const text = matches.of(field.regex)?.[field.group];
    return text === undefined ? undefined : fromText(text, field.type);
  }
  return object === null ? undefined : fromJson(valueAt(object, field.path), field.type);
}

/** The line as a JSON object, or the failure saying why it is not one. */
function parseObject(line: string): { ok: true; object: object } | ParseFailure {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return parseFailure('json_malformed', { detail: error instanceof Error ? error.message : 'invalid JSON' });
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { ok: true, object: value };
  const kind: JsonKind = Array.isArray(value)
    ? 'array'
    : value === null
      ? 'null'
      : (typeof value as 'string' | 'number' | 'boolean');
  return parseFailure('json_not_object', { kind });
}
