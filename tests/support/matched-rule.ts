import type { MatchedRule } from '#engine/waf';

/** A WAF match as the engine reports it, for tests of what reads matches (second opinion, level check). */
export const matchedRule = (
  id: string,
  variable: string,
  value: string,
  tags: string[],
  severity = 'CRITICAL',
): MatchedRule => ({
  id,
  phase: 2,
  message: '',
  data: '',
  severity,
  tags,
  file: 'crs.conf',
  line: 1,
  variable,
  value,
});
