import { describe, expect, it } from 'vitest';
import {
  compileParser,
  PARSE_LIMITS,
  RECORD_META_FIELDS,
  type ConfigProblem,
  type LogParseConfig,
} from '#engine/parse';
import { config, jsonField, regexField } from './fixtures.ts';

/** The problems of a configuration that must be refused, as `field: code` pairs. */
function problemsOf(overrides: Partial<LogParseConfig>): ConfigProblem[] {
  const compiled = compileParser(config(overrides));
  if (compiled.ok) throw new Error('the configuration was accepted');
  return [...compiled.error];
}

const codes = (problems: readonly ConfigProblem[]): string[] => problems.map((p) => `${p.field}: ${p.code}`);

describe('compileParser accepts', () => {
  it('a plain_text configuration with one required regex area', () => {
    const compiled = compileParser(config());
    expect(compiled.ok).toBe(true);
    if (compiled.ok) {
      expect(compiled.value.id).toBe('cfg-1');
      expect(compiled.value.fieldNames).toEqual(['host']);
    }
  });

  it('a json configuration mixing json and regex areas, with key fields and the intelligence query', () => {
    const compiled = compileParser(
      config({
        templateType: 'json',
        fields: [
          jsonField('src_ip', 'client.ip', { required: true }),
          jsonField('user_agent', 'ua'),
          regexField('method', '"request":"(\\w+) '),
        ],
        keyFields: { ip: 'src_ip', user: 'method' },
        intelligence: true,
      }),
    );
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(compiled.value.keyFields).toEqual({ ip: 'src_ip', user: 'method' });
  });
});

describe('compileParser refuses', () => {
  it('a configuration without a required field, in the spec words', () => {
    const problems = problemsOf({ fields: [regexField('host', '(\\S+)')] });
    expect(codes(problems)).toEqual(['fields: required_field_none']);
    expect(problems[0]?.message).toBe('must include at least one required field');
  });

  it('duplicate field names, naming the first one', () => {
    const problems = problemsOf({
      fields: [regexField('host', '(a)', { required: true }), regexField('host', '(b)')],
    });
    expect(codes(problems)).toEqual(['fields[1].name: field_name_duplicate']);
    expect(problems[0]?.message).toBe('is already the name of fields[0]');
  });

  it.each([
    ['', 'field_name_empty'],
    ['x'.repeat(PARSE_LIMITS.fieldName + 1), 'field_name_too_long'],
    ['_secret', 'field_name_reserved'],
    ['1st', 'field_name_invalid'],
    ['user name', 'field_name_invalid'],
  ])('the field name %j (%s)', (name, code) => {
    expect(codes(problemsOf({ fields: [regexField(name, '(a)', { required: true })] }))).toEqual([
      `fields[0].name: ${code}`,
    ]);
  });

  it.each(RECORD_META_FIELDS)('the record field name %s for a configured field', (name) => {
    expect(codes(problemsOf({ fields: [regexField(name, '(a)', { required: true })] }))).toEqual([
      'fields[0].name: field_name_reserved',
    ]);
  });

  it('a regex with a backreference, saying it cannot run in linear time', () => {
    const problems = problemsOf({ fields: [regexField('word', '(\\w+) \\1', { required: true })] });
    expect(codes(problems)).toEqual(['fields[0].regex: regex_not_linear']);
    expect(problems[0]?.message).toMatch(/linear time/);
  });

  it('a regex with a lookahead', () => {
    expect(codes(problemsOf({ fields: [regexField('a', '(?=x)(\\w+)', { required: true })] }))).toEqual([
      'fields[0].regex: regex_not_linear',
    ]);
  });

  it('an invalid regex, with the regex engine reason', () => {
    const problems = problemsOf({ fields: [regexField('a', '(unclosed', { required: true })] });
    expect(codes(problems)).toEqual(['fields[0].regex: regex_invalid']);
    expect(problems[0]?.params).toMatchObject({ code: 'regex_invalid', kind: 'unterminated_group' });
  });

  it('an empty regex and one over the length limit', () => {
    const problems = problemsOf({
      fields: [
        regexField('a', '', { required: true }),
        regexField('b', 'x'.repeat(PARSE_LIMITS.regex + 1), { group: 0 }),
      ],
    });
    expect(codes(problems)).toEqual(['fields[0].regex: regex_empty', 'fields[1].regex: regex_too_long']);
  });

  it('a capture group number above the count of groups', () => {
    const problems = problemsOf({ fields: [regexField('a', '(\\d+)-(\\d+)', { group: 3, required: true })] });
    expect(codes(problems)).toEqual(['fields[0].group: group_out_of_range']);
    expect(problems[0]?.message).toBe('is 3 but the regular expression has 2 capture groups (0 is the whole match)');
    expect(problems[0]?.params).toMatchObject({ group: 3, groups: 2 });
  });

  it('a negative or fractional group number', () => {
    const problems = problemsOf({
      fields: [regexField('a', '(x)', { group: -1, required: true }), regexField('b', '(x)', { group: 1.5 })],
    });
    expect(codes(problems)).toEqual(['fields[0].group: group_invalid', 'fields[1].group: group_invalid']);
  });

  it('an unknown time zone', () => {
    const problems = problemsOf({ timezone: 'Mars/Olympus_Mons' });
    expect(codes(problems)).toEqual(['timezone: timezone_unknown']);
    expect(problems[0]?.message).toMatch(/IANA name such as Asia\/Shanghai/);
  });

  it.each([
    ['YYYY-MM-DD HH:mm:ss', 'time_format_unknown_text'],
    ['MMM DD hh:mm', 'time_format_missing_token'],
    ['DD hh:mm:ss', 'time_format_missing_token'],
    ['MMM DD hh:mm:ss MM', 'time_format_repeated_token'],
    ['hh:mm:ss.SSS MMM DD', 'time_format_unknown_text'],
    ['', 'time_format_empty'],
    [`MMM DD hh:mm:ss${' '.repeat(PARSE_LIMITS.timeFormat)}`, 'time_format_too_long'],
  ])('the custom time format %j (%s)', (custom, code) => {
    const problems = problemsOf({ time: { mode: 'extract', format: { custom }, field: '^(\\S+)' } });
    expect(codes(problems)).toEqual([`time.format.custom: ${code}`]);
  });

  it('says which tokens a custom format lacks', () => {
    const [problem] = problemsOf({ time: { mode: 'extract', format: { custom: 'MMM DD' }, field: '(.+)' } });
    expect(problem?.params).toMatchObject({ code: 'time_format_missing_token', tokens: 'hh,mm,ss' });
  });

  it('a time regex that cannot run in linear time, and a missing time field', () => {
    expect(codes(problemsOf({ time: { mode: 'extract', format: 'YYYY-MM-DD hh:mm:ss', field: '(\\d)\\1' } }))).toEqual([
      'time.field: regex_not_linear',
    ]);
    expect(
      codes(
        problemsOf({
          templateType: 'json',
          fields: [jsonField('a', 'a', { required: true })],
          time: { mode: 'extract', format: 'YYYY-MM-DD hh:mm:ss', field: '' },
        }),
      ),
    ).toEqual(['time.field: time_field_empty']);
  });

  it('a json area on a plain_text template', () => {
    expect(codes(problemsOf({ fields: [jsonField('a', 'a', { required: true })] }))).toEqual([
      'fields[0].kind: json_field_on_plain_text',
    ]);
  });

  it('an empty json source and one over the length limit', () => {
    const problems = problemsOf({
      templateType: 'json',
      fields: [jsonField('a', '', { required: true }), jsonField('b', 'x'.repeat(PARSE_LIMITS.source + 1))],
    });
    expect(codes(problems)).toEqual(['fields[0].source: source_empty', 'fields[1].source: source_too_long']);
  });

  it('key fields naming no configured field, or an unknown target', () => {
    const keyFields = { ip: 'src_ip', printer: 'host' } as unknown as LogParseConfig['keyFields'];
    expect(codes(problemsOf({ keyFields }))).toEqual([
      'keyFields.ip: key_field_unknown',
      'keyFields.printer: key_target_unknown',
    ]);
  });

  it('the intelligence query without src_ip and user_agent fields', () => {
    const problems = problemsOf({ intelligence: true });
    expect(codes(problems)).toEqual(['intelligence: intelligence_fields_missing']);
    expect(problems[0]?.params).toMatchObject({ missing: 'src_ip,user_agent' });
  });

  it('more fields than the limit', () => {
    const fields = Array.from({ length: PARSE_LIMITS.fields + 1 }, (_, i) =>
      regexField(`f${i}`, '(x)', { required: i === 0 }),
    );
    expect(codes(problemsOf({ fields }))).toEqual(['fields: fields_too_many']);
  });

  it('every problem at once, each with its path, code and English message', () => {
    const problems = problemsOf({
      timezone: 'Nowhere/City',
      fields: [regexField('a', '(x)\\1'), regexField('a', '(y)', { group: 2 })],
    });
    expect(codes(problems)).toEqual([
      'fields: required_field_none',
      'fields[0].regex: regex_not_linear',
      'fields[1].name: field_name_duplicate',
      'fields[1].group: group_out_of_range',
      'timezone: timezone_unknown',
    ]);
    for (const problem of problems) {
      expect(problem.message.length).toBeGreaterThan(0);
      expect(problem.params.code).toBe(problem.code);
    }
  });
});
