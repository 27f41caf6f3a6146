import { compileParser, type FieldConfig, type LogParseConfig, type LogParser } from '#engine/parse';

/** A log configuration with sensible defaults; tests override what they are about. */
export function config(overrides: Partial<LogParseConfig> = {}): LogParseConfig {
  return {
    id: 'cfg-1',
    name: 'syslog',
    templateType: 'plain_text',
    time: { mode: 'current' },
    timezone: 'UTC',
    fields: [regexField('host', '^\\S+ (\\S+)', { required: true })],
    keyFields: {},
    intelligence: false,
    ...overrides,
  };
}

export function regexField(
  name: string,
  regex: string,
  options: Partial<Omit<Extract<FieldConfig, { kind: 'regex' }>, 'kind' | 'name' | 'regex'>> = {},
): FieldConfig {
  return { kind: 'regex', name, regex, type: 'string', group: 1, required: false, ...options };
}

export function jsonField(
  name: string,
  source: string,
  options: Partial<Omit<Extract<FieldConfig, { kind: 'json' }>, 'kind' | 'name' | 'source'>> = {},
): FieldConfig {
  return { kind: 'json', name, source, type: 'string', required: false, ...options };
}

/** The compiled parser of a configuration that must be valid. */
export function parserOf(overrides: Partial<LogParseConfig> = {}): LogParser {
  const compiled = compileParser(config(overrides));
  if (!compiled.ok) throw new Error(`fixture configuration refused: ${JSON.stringify(compiled.error)}`);
  return compiled.value;
}

/** Epoch ms of an ISO instant, for readable expectations. */
export const at = (iso: string): number => Date.parse(iso);
