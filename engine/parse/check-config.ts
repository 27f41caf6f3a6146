import { userRegexIssue, userRegexIssueText, type ErrorParams } from '#engine/shared';
import {
  configProblem,
  KEY_TARGETS,
  PARSE_LIMITS,
  PREDEFINED_TIME_FORMAT,
  RECORD_META_FIELDS,
  type ConfigProblem,
  type FieldType,
  type LogParseConfig,
} from './config.ts';
import { LogTimeReader } from './log-time.ts';
import { compileTimeFormat } from './time-format.ts';
import { timeZoneNamed } from './time-zone.ts';
import { jsonPath, type JsonPath } from './values.ts';

/**
 * A configuration checked and compiled: every regex built once (fields sharing a pattern share one
 * run per line), every path split, the time format and zone resolved.
 */
export interface ParserPlan {
  id: string;
  templateType: LogParseConfig['templateType'];
  /** Distinct patterns of the regex areas and the time field, compiled. */
  regexes: RegExp[];
  fields: FieldPlan[];
  time: TimePlan;
  fieldNames: string[];
  keyFields: LogParseConfig['keyFields'];
  intelligence: boolean;
}

export type FieldPlan =
  | { kind: 'regex'; name: string; type: FieldType; required: boolean; regex: number; group: number }
  | { kind: 'json'; name: string; type: FieldType; required: boolean; path: JsonPath };

export type TimePlan =
  | { mode: 'current' }
  | { mode: 'regex'; regex: number; group: number; source: string; reader: LogTimeReader }
  | { mode: 'json'; path: JsonPath; reader: LogTimeReader };

/** Searchable in the query box (engine/shared log-query's field names), and not reserved. */
const FIELD_NAME = /^[A-Za-z@][\w.@-]*$/;
const META: ReadonlySet<string> = new Set(RECORD_META_FIELDS);

/** A compiled pattern (null when it was refused) and its number of capture groups. */
interface RegexCheck {
  regex: RegExp | null;
  groups: number;
}

class Checker {
  readonly problems: ConfigProblem[] = [];
  readonly #patterns = new Map<string, number>();
  readonly regexes: RegExp[] = [];

  add(field: string, code: ConfigProblem['code'], message: string, params?: ErrorParams): void {
    this.problems.push(configProblem(field, code, message, params));
  }

  /** A user pattern compiled once however many areas use it; its index in `regexes`, or -1. */
  regex(field: string, pattern: string, emptyCode: 'regex_empty' | 'time_field_empty'): RegexCheck & { index: number } {
    if (pattern.length === 0) {
      this.add(field, emptyCode, 'is required');
      return { regex: null, groups: 0, index: -1 };
    }
    if (pattern.length > PARSE_LIMITS.regex) {
      this.add(field, 'regex_too_long', `must be at most ${PARSE_LIMITS.regex} characters`, {
        maximum: PARSE_LIMITS.regex,
      });
      return { regex: null, groups: 0, index: -1 };
    }
    const issue = userRegexIssue(pattern);
    if (issue) {
      const params: ErrorParams = issue.reason === 'regex_invalid' ? { kind: issue.kind, error: issue.error } : {};
      this.add(
        field,
        issue.reason === 'regex_invalid' ? 'regex_invalid' : 'regex_not_linear',
        userRegexIssueText(issue),
        params,
      );
      return { regex: null, groups: 0, index: -1 };
    }
    let index = this.#patterns.get(pattern);
    if (index === undefined) {
      index = this.regexes.length;
      this.regexes.push(new RegExp(pattern));
      this.#patterns.set(pattern, index);
    }
    // An empty alternative always matches, so its match lists every group of the pattern.
    const groups = (new RegExp(`(?:${pattern})|`).exec('')?.length ?? 1) - 1;
    return { regex: this.regexes[index] ?? null, groups, index };
  }

  source(field: string, source: string, emptyCode: 'source_empty' | 'time_field_empty'): JsonPath | null {
    if (source.length === 0) {
      this.add(field, emptyCode, 'is required');
      return null;
    }
    if (source.length > PARSE_LIMITS.source) {
      this.add(field, 'source_too_long', `must be at most ${PARSE_LIMITS.source} characters`, {
        maximum: PARSE_LIMITS.source,
      });
      return null;
    }
    return jsonPath(source);
  }
}

/** The configuration's problems, each naming its field path, or the plan a parser runs. */
export function checkConfig(
  config: LogParseConfig,
): { ok: true; plan: ParserPlan } | { ok: false; problems: ConfigProblem[] } {
  const check = new Checker();
  const json = config.templateType === 'json';

  if (config.fields.length > PARSE_LIMITS.fields) {
    check.add('fields', 'fields_too_many', `must have at most ${PARSE_LIMITS.fields} field configurations`, {
      maximum: PARSE_LIMITS.fields,
    });
  }
  const fields = config.fields.slice(0, PARSE_LIMITS.fields);
  if (!fields.some((f) => f.required)) {
    check.add('fields', 'required_field_none', 'must include at least one required field');
  }

  const firstWithName = new Map<string, number>();
  const plans: FieldPlan[] = [];
  fields.forEach((field, i) => {
    const at = `fields[${i}]`;
    checkName(check, `${at}.name`, field.name, firstWithName, i);
    if (field.kind === 'regex') {
      const { regex, groups, index } = check.regex(`${at}.regex`, field.regex, 'regex_empty');
      if (!Number.isInteger(field.group) || field.group < 0) {
        check.add(`${at}.group`, 'group_invalid', 'must be a whole number, 0 for the whole match');
      } else if (regex && field.group > groups) {
        check.add(
          `${at}.group`,
          'group_out_of_range',
          `is ${field.group} but the regular expression has ${groups} capture group${groups === 1 ? '' : 's'} (0 is the whole match)`,
          { group: field.group, groups },
        );
      }
      plans.push({ ...pick(field), kind: 'regex', regex: index, group: field.group });
    } else {
      if (!json) {
        check.add(
          `${at}.kind`,
          'json_field_on_plain_text',
          'is a json extraction area, which needs the json template: use a regex extraction area for plain_text',
        );
      }
      const path = check.source(`${at}.source`, field.source, 'source_empty');
      if (path) plans.push({ ...pick(field), kind: 'json', path });
    }
  });

  const zone = timeZoneNamed(config.timezone.length <= PARSE_LIMITS.timezone ? config.timezone : '');
  if (!zone) {
    check.add(
      'timezone',
      'timezone_unknown',
      'is not a known time zone: use an IANA name such as Asia/Shanghai or UTC',
      { timezone: capped(config.timezone) },
    );
  }
  const time = timePlan(check, config, zone);

  const names = new Set(fields.map((f) => f.name));
  for (const [target, name] of Object.entries(config.keyFields)) {
    if (!(KEY_TARGETS as readonly string[]).includes(target)) {
      check.add(
        `keyFields.${capped(target)}`,
        'key_target_unknown',
        `is not a key target: use ${KEY_TARGETS.join(', ')}`,
      );
    } else if (name !== undefined && !names.has(name)) {
      check.add(`keyFields.${target}`, 'key_field_unknown', `names no configured field (${capped(name)})`, {
        name: capped(name),
      });
    }
  }
  if (config.intelligence) {
    const missing = ['src_ip', 'user_agent'].filter((n) => !names.has(n));
    if (missing.length > 0) {
      check.add(
        'intelligence',
        'intelligence_fields_missing',
        `needs fields named src_ip and user_agent to query the intelligence store (missing: ${missing.join(', ')})`,
        { missing: missing.join(',') },
      );
    }
  }

  if (check.problems.length > 0 || !time) return { ok: false, problems: check.problems };
  return {
    ok: true,
    plan: {
      id: config.id,
      templateType: config.templateType,
      regexes: check.regexes,
      fields: plans,
      time,
      fieldNames: fields.map((f) => f.name),
      keyFields: { ...config.keyFields },
      intelligence: config.intelligence,
    },
  };
}

const pick = (field: { name: string; type: FieldType; required: boolean }) => ({
  name: field.name,
  type: field.type,
  required: field.required,
});

const capped = (text: string): string => (text.length > 64 ? `${text.slice(0, 63)}…` : text);

function checkName(check: Checker, at: string, name: string, firstWithName: Map<string, number>, index: number): void {
  if (name.length === 0) {
    check.add(at, 'field_name_empty', 'is required');
  } else if (name.length > PARSE_LIMITS.fieldName) {
    check.add(at, 'field_name_too_long', `must be at most ${PARSE_LIMITS.fieldName} characters`, {
      maximum: PARSE_LIMITS.fieldName,
    });
  } else if (name.startsWith('_') || META.has(name)) {
    check.add(
      at,
      'field_name_reserved',
      `is reserved: a field name may not start with _ nor be one of the record's own fields (${RECORD_META_FIELDS.join(', ')})`,
      { name },
    );
  } else if (!FIELD_NAME.test(name)) {
    check.add(at, 'field_name_invalid', 'must start with a letter and hold only letters, digits and _ . - @', { name });
  } else {
    const first = firstWithName.get(name);
    if (first === undefined) firstWithName.set(name, index);
    else check.add(at, 'field_name_duplicate', `is already the name of fields[${first}]`, { name, other: first });
  }
}

function timePlan(check: Checker, config: LogParseConfig, zone: ReturnType<typeof timeZoneNamed>): TimePlan | null {
  const time = config.time;
  if (time.mode === 'current') return { mode: 'current' };
  const predefined: string | null = typeof time.format === 'string' ? time.format : null;
  const pattern = predefined ?? (time.format as { custom: string }).custom;
  const at = predefined === null ? 'time.format.custom' : 'time.format';
  let format = null;
  // The type allows only the predefined text; a configuration from an older or foreign source may not.
  if (predefined !== null && predefined !== PREDEFINED_TIME_FORMAT) {
    check.add(at, 'time_format_unknown_text', `must be ${PREDEFINED_TIME_FORMAT} or a custom format`, {
      text: capped(pattern),
    });
  } else {
    const compiled = compileTimeFormat(pattern);
    if (compiled.ok) format = compiled.format;
    else for (const issue of compiled.issues) check.add(at, issue.code, issue.message, issue.params);
  }
  if (config.templateType === 'json') {
    const path = check.source('time.field', time.field, 'time_field_empty');
    return path && format && zone ? { mode: 'json', path, reader: new LogTimeReader(format, zone) } : null;
  }
  const { regex, groups, index } = check.regex('time.field', time.field, 'time_field_empty');
  return regex && format && zone
    ? {
        mode: 'regex',
        regex: index,
        group: groups > 0 ? 1 : 0,
        source: time.field,
        reader: new LogTimeReader(format, zone),
      }
    : null;
}
