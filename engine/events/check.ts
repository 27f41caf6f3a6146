import { userRegexIssue, userRegexIssueText } from '#engine/shared';
import { parseRelationSyntax, relationLabels, unknownLabelProblem } from './relation.ts';
import type { EventDefinition, EventProblem, KeyTarget, SourceLookup } from './types.ts';

export interface CheckContext {
  /** The other events by id (the event itself may be among them: its own definition is used). */
  events: ReadonlyMap<string, EventDefinition>;
  source: SourceLookup;
}

/** The candidate fields of a set of sources: fields common to all of them (unknown sources are left out), in the first one's order. */
export function candidateFields(sources: readonly string[], source: SourceLookup): string[] {
  let common: string[] | null = null;
  for (const id of sources) {
    const info = source(id);
    if (info === undefined) continue;
    const fields = new Set(info.fields);
    common = common === null ? [...new Set(info.fields)] : common.filter((f) => fields.has(f));
  }
  return common ?? [];
}

/** Every problem of a definition against the others and the sources (all at once; empty = fine). */
export function checkEvent(def: EventDefinition, context: CheckContext): EventProblem[] {
  const problems: EventProblem[] = [];
  const add = (path: string, code: string, message: string, params?: Record<string, string | number>): void => {
    problems.push(params === undefined ? { path, code, message } : { path, code, message, params });
  };
  const lookup = (id: string): EventDefinition | undefined => (id === def.id ? def : context.events.get(id));

  // Sources.
  const known: string[] = [];
  def.sources.forEach((id, i) => {
    if (def.sources.indexOf(id) !== i)
      add(`sources[${i}]`, 'source_duplicate', `The log source "${id}" is listed twice.`, { id });
    else if (context.source(id) === undefined)
      add(`sources[${i}]`, 'source_unknown', `The log source "${id}" does not exist.`, { id });
    else known.push(id);
  });
  if (def.enabled && def.sources.length === 0)
    add('sources', 'sources_required', `The event "${def.name}" needs a log source before it can be enabled.`);
  const candidates = new Set(candidateFields(known, context.source));
  const checkField = (path: string, field: string): void => {
    if (known.length > 0 && !candidates.has(field))
      add(path, 'field_unknown', `The field "${field}" is not a field of every log source of the event.`, { field });
  };
  const checkObject = (object: KeyTarget): void => {
    for (const id of known) {
      if (context.source(id)?.keyFields[object] === undefined)
        add('object', 'object_unmapped', `The log source "${id}" maps no field to the trigger object "${object}".`, {
          object,
          source: id,
        });
    }
  };
  /** Whether every source of `inner` is a source of `def`. */
  const contained = (inner: EventDefinition): boolean => inner.sources.every((s) => def.sources.includes(s));
  const simpleRef = (path: string, id: string, sourcesCode: string, what: string): void => {
    const ref = lookup(id);
    if (ref === undefined) add(path, 'event_unknown', `The event "${id}" does not exist.`, { id });
    else if (ref.kind !== 'simple')
      add(path, 'event_not_simple', `The ${what} "${ref.name}" is not a simple event.`, { id, kind: ref.kind });
    else if (!contained(ref))
      add(
        path,
        sourcesCode,
        `The log sources of the ${what} "${ref.name}" must equal or be contained by this event's.`,
        {
          id,
        },
      );
  };

  switch (def.kind) {
    case 'simple': {
      const labels = def.conditions.map((c) => c.label);
      def.conditions.forEach((c, i) => {
        if (labels.indexOf(c.label) !== i)
          add(`conditions[${i}].label`, 'label_duplicate', `The label "${c.label}" is used by two conditions.`, {
            label: c.label,
          });
        checkField(`conditions[${i}].field`, c.field);
        if (c.filter === 'string' && c.mode === 'regex') {
          const issue = userRegexIssue(c.value);
          if (issue !== null)
            add(
              `conditions[${i}].value`,
              'regex_invalid',
              `The regex of condition ${c.label} ${userRegexIssueText(issue)}.`,
              issue.reason === 'regex_invalid' ? { reason: issue.reason, kind: issue.kind } : { reason: issue.reason },
            );
        }
      });
      checkRelation(def.relation, labels, add, (label, i) =>
        add(`conditions[${i}].label`, 'condition_unused', `The condition ${label} is not used in the relation.`, {
          label,
        }),
      );
      break;
    }
    case 'count':
    case 'distinct':
    case 'average':
      if (def.triggerEvent !== null)
        simpleRef('triggerEvent', def.triggerEvent, 'trigger_event_sources', 'trigger event');
      if (def.kind !== 'count') checkField('field', def.field);
      checkObject(def.object);
      break;
    case 'cep':
      def.steps.forEach((s, i) => simpleRef(`steps[${i}].event`, s.event, 'step_sources', 'step event'));
      checkObject(def.object);
      break;
    case 'combined': {
      const labels = def.members.map((m) => m.label);
      const sources = new Set(def.sources);
      def.members.forEach((m, i) => {
        if (labels.indexOf(m.label) !== i)
          add(`members[${i}].label`, 'label_duplicate', `The label "${m.label}" is used by two member events.`, {
            label: m.label,
          });
        const ref = lookup(m.event);
        const path = `members[${i}].event`;
        if (ref === undefined) add(path, 'event_unknown', `The event "${m.event}" does not exist.`, { id: m.event });
        else if (ref.kind === 'combined')
          add(
            path,
            'member_not_single',
            `The member "${ref.name}" is a combined event; members must be single events.`,
            {
              id: m.event,
            },
          );
        else if (ref.sources.length !== sources.size || !ref.sources.every((s) => sources.has(s)))
          add(
            path,
            'member_sources',
            `The log sources of the member "${ref.name}" must be identical to this event's.`,
            {
              id: m.event,
            },
          );
      });
      checkRelation(def.relation, labels, add, (label, i) =>
        add(`members[${i}].label`, 'member_unused', `The member ${label} is not used in the relation.`, { label }),
      );
      break;
    }
  }
  return problems;
}

function checkRelation(
  text: string,
  labels: readonly string[],
  add: (path: string, code: string, message: string, params?: Record<string, string | number>) => void,
  unused: (label: string, index: number) => void,
): void {
  const parsed = parseRelationSyntax(text);
  if (!parsed.ok) {
    const p = parsed.problem;
    add(p.path, p.code, p.message, p.params);
    return;
  }
  const used = relationLabels(parsed.value);
  const reported = new Set<string>();
  for (const { label, position } of used) {
    if (labels.includes(label) || reported.has(label)) continue;
    reported.add(label);
    const p = unknownLabelProblem(label, position);
    add(p.path, p.code, p.message, p.params);
  }
  const names = new Set(used.map((u) => u.label));
  labels.forEach((label, i) => {
    if (!names.has(label) && labels.indexOf(label) === i) unused(label, i);
  });
}
