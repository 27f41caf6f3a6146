import { userRegexIssue, type EventConditionInput } from '#engine/shared';
import { cmpOf, compare } from './compare.ts';
import { compileRelation, parseRelation } from './relation.ts';
import type { EventDefinition, ExplainRow } from './types.ts';
import { asNumber, asText, fieldValue } from './values.ts';

type LogRecord = Readonly<Record<string, unknown>>;

/** One condition against one record, the way the hot path tests it (a regex that cannot be used matches nothing). */
export function conditionMatches(c: EventConditionInput, value: unknown): boolean {
  if (c.filter === 'number') {
    const n = asNumber(value);
    const threshold = Number(c.value);
    return n === n && Number.isFinite(threshold) && compare(cmpOf(c.mode as '>='), n, threshold);
  }
  const text = asText(value);
  if (text === null) return false;
  if (c.mode === 'exact') return text === c.value;
  return userRegexIssue(c.value) === null && new RegExp(c.value).test(text);
}

/**
 * Rows for a simple event: one per condition (its label; the record's value, null when it has
 * none), then the event itself (its id, the relation as value). Labels of parts are prefixed: `<trigger event id>.a`, `<step event id>.a`,
 * `<member label>.a` (and the member's own row under its label).
 */
export function explainEvent(
  eventId: string,
  record: LogRecord,
  definitions: ReadonlyMap<string, EventDefinition>,
): ExplainRow[] | undefined {
  const def = definitions.get(eventId);
  if (def === undefined) return undefined;
  const rows: ExplainRow[] = [];
  const simple = (id: string, prefix: string): boolean => {
    const s = definitions.get(id);
    if (s?.kind !== 'simple') {
      rows.push({ label: prefix + id, field: '', value: null, matched: false });
      return false;
    }
    const outcome = new Map<string, boolean>();
    for (const c of s.conditions) {
      const value = fieldValue(record, c.field);
      const matched = conditionMatches(c, value);
      outcome.set(c.label, matched);
      rows.push({ label: prefix + c.label, field: c.field, value: value === undefined ? null : value, matched });
    }
    const parsed = parseRelation(s.relation, [...outcome.keys()]);
    const matched =
      parsed.ok && compileRelation<null>(parsed.value, (label) => () => outcome.get(label) === true)(null);
    rows.push({ label: prefix === '' ? s.id : prefix.slice(0, -1), field: '', value: s.relation, matched });
    return matched;
  };
  const parts = (d: EventDefinition, prefix: string): void => {
    switch (d.kind) {
      case 'simple':
        simple(d.id, prefix);
        return;
      case 'count':
      case 'distinct':
      case 'average':
        if (d.triggerEvent !== null) simple(d.triggerEvent, `${prefix}${d.triggerEvent}.`);
        if (d.kind !== 'count') {
          const value = fieldValue(record, d.field);
          const usable = d.kind === 'average' ? !Number.isNaN(asNumber(value)) : asText(value) !== null;
          rows.push({
            label: `${prefix}field`,
            field: d.field,
            value: value === undefined ? null : value,
            matched: usable,
          });
        }
        return;
      case 'cep':
        d.steps.forEach((s, i) => simple(s.event, `${prefix}steps[${i}].`));
        return;
      case 'combined':
        for (const m of d.members) {
          const member = definitions.get(m.event);
          if (member === undefined || member.kind === 'combined') {
            rows.push({ label: m.label, field: '', value: m.event, matched: false });
          } else if (member.kind === 'simple') simple(member.id, `${m.label}.`);
          else parts(member, `${m.label}.`);
        }
    }
  };
  parts(def, '');
  return rows;
}
