import type { ConfigProblem, LogParseConfig } from './config.ts';
import { parseFailureText, type Locale, type ParseFailure } from './failures.ts';
import { compileParser, type ParsedRecord } from './log-parser.ts';

export type PreviewOutcome =
  | { kind: 'config_invalid'; problems: readonly ConfigProblem[] }
  | { kind: 'parsed'; record: ParsedRecord }
  | { kind: 'failed'; failure: ParseFailure; text: string };

/**
 * The console's live parse of a pasted sample (spec 2.2): the configuration's problems while it has
 * any (so no preview before a field is required), else the record or the failure in the reader's
 * language (spec 7: `必要字段不允许为空: <field_name>`).
 */
export function preview(config: LogParseConfig, sample: string, now: number, locale: Locale): PreviewOutcome {
  const compiled = compileParser(config);
  if (!compiled.ok) return { kind: 'config_invalid', problems: compiled.error };
  const outcome = compiled.value.parse(sample, { now });
  if (outcome.ok) return { kind: 'parsed', record: outcome.record };
  return { kind: 'failed', failure: outcome, text: parseFailureText(outcome, locale) };
}
