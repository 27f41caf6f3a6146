/**
 * The event form's state (spec 2.4): every kind's inputs at once (switching the kind keeps what was
 * typed), the API's event built from the current kind, the engine's schema as the form's own check,
 * and refusals placed on the input they name, whatever spelling the path came in (zod's
 * `conditions.1.value`, the engine's `conditions[1].value`).
 */
import { eventInputSchema, type EventInput } from '$lib/contracts.ts';
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';
import { customProblemText, problemText } from '$lib/problem-text.ts';
import { schemaProblems } from '$lib/validation.ts';
import { formPath } from './event-paths.ts';
import {
  EVENT_BOUNDS,
  modesOf,
  nextLabel,
  type Comparator,
  type ConditionFilter,
  type Continuity,
  type EventKind,
  type KeyTarget,
  type MatchMode,
  type WindowUnit,
} from './event-vocabulary.ts';

export interface ConditionDraft {
  /** A stable key for the list (areas are added and removed). */
  key: number;
  label: string;
  field: string;
  filter: ConditionFilter;
  mode: MatchMode;
  value: string;
}

export interface StepDraft {
  key: number;
  event: string;
  /** Null while the number box is empty. */
  min: number | null;
  max: number | null;
}

export interface MemberDraft {
  key: number;
  label: string;
  event: string;
}

let nextKey = 1;
const condition = (label: string, from: Partial<ConditionDraft> = {}): ConditionDraft => ({
  field: '',
  filter: 'string',
  mode: 'regex',
  value: '',
  ...from,
  label,
  key: nextKey++,
});
const step = (from: Partial<StepDraft> = {}): StepDraft => ({ event: '', min: 1, max: 1, ...from, key: nextKey++ });
const member = (label: string, event = ''): MemberDraft => ({ label, event, key: nextKey++ });

const COMMON = new Set(['name', 'description', 'sources', 'kind']);
const BY_KIND: Readonly<Record<EventKind, ReadonlySet<string>>> = {
  simple: new Set(['relation', 'conditions']),
  count: new Set(['triggerEvent', 'object', 'window', 'comparator', 'threshold']),
  distinct: new Set(['triggerEvent', 'object', 'window', 'comparator', 'threshold', 'field']),
  average: new Set(['triggerEvent', 'object', 'window', 'comparator', 'threshold', 'field']),
  cep: new Set(['object', 'window', 'continuity', 'steps']),
  combined: new Set(['relation', 'members']),
};
const ITEM_PROPS: Readonly<Record<string, ReadonlySet<string>>> = {
  conditions: new Set(['field', 'filter', 'mode', 'value']),
  steps: new Set(['event', 'min', 'max']),
  members: new Set(['event']),
};

export class EventDraft {
  name = $state('');
  description = $state('');
  /** Log configuration ids. */
  sources = $state<string[]>([]);
  kind = $state<EventKind>('simple');
  relation = $state('');
  /** The relation follows the labels (`a & b`) until the person writes one of their own. */
  relationAuto = $state(true);
  conditions = $state<ConditionDraft[]>([condition('a')]);
  /** A simple event's id; empty: every record of the sources. */
  triggerEvent = $state('');
  object = $state<KeyTarget>('ip');
  windowValue = $state<number | null>(5);
  windowUnit = $state<WindowUnit>('minute');
  comparator = $state<Comparator>('>=');
  threshold = $state<number | null>(10);
  /** The distinct object or the mean object. */
  field = $state('');
  continuity = $state<Continuity>('loose');
  steps = $state<StepDraft[]>([step(), step()]);
  members = $state<MemberDraft[]>([member('a'), member('b')]);
  #baseline = $state('');
  /**
   * A preset's name and description as shipped are shown in the console's language; sent back
   * untouched, they stay as stored (shown text -> stored text).
   */
  #shown: { name: [string, string]; description: [string, string] } | null = null;

  constructor(kind: EventKind = 'simple') {
    this.kind = kind;
    this.#syncRelation();
    this.#baseline = this.#snapshot();
  }

  /** `shown`: the name and description as the console says them (a preset's, translated). */
  load(event: EventInput, shown: { name: string; description: string } = event): void {
    this.#shown = { name: [shown.name, event.name], description: [shown.description, event.description] };
    this.name = shown.name;
    this.description = shown.description;
    this.sources = [...event.sources];
    this.kind = event.kind;
    switch (event.kind) {
      case 'simple':
        this.conditions = event.conditions.map((c) => condition(c.label, { ...c }));
        this.relation = event.relation;
        break;
      case 'count':
      case 'distinct':
      case 'average':
        this.triggerEvent = event.triggerEvent ?? '';
        this.object = event.object;
        this.windowValue = event.window.value;
        this.windowUnit = event.window.unit;
        this.comparator = event.comparator;
        this.threshold = event.threshold;
        this.field = event.kind === 'count' ? '' : event.field;
        break;
      case 'cep':
        this.object = event.object;
        this.windowValue = event.window.value;
        this.windowUnit = event.window.unit;
        this.continuity = event.continuity;
        this.steps = event.steps.map((s) => step({ ...s }));
        break;
      case 'combined':
        this.members = event.members.map((m) => member(m.label, m.event));
        this.relation = event.relation;
        break;
    }
    this.relationAuto = this.relation === this.#autoRelation();
    this.#baseline = this.#snapshot();
  }

  get dirty(): boolean {
    return this.#snapshot() !== this.#baseline;
  }

  markSaved(): void {
    this.#baseline = this.#snapshot();
  }

  /** The labels the relation can name: the conditions' of a simple event, the members' of a combined one. */
  get labels(): string[] {
    if (this.kind === 'simple') return this.conditions.map((c) => c.label);
    if (this.kind === 'combined') return this.members.map((m) => m.label);
    return [];
  }

  setKind(kind: EventKind): void {
    this.kind = kind;
    this.#syncRelation();
  }

  setRelation(text: string): void {
    this.relation = text;
    this.relationAuto = text.trim() === '' || text === this.#autoRelation();
  }

  setFilter(c: ConditionDraft, filter: ConditionFilter): void {
    c.filter = filter;
    if (!modesOf(filter).includes(c.mode)) c.mode = modesOf(filter)[0] ?? 'regex';
  }

  addCondition(): void {
    const label = nextLabel(this.conditions.map((c) => c.label));
    if (label === null || this.conditions.length >= EVENT_BOUNDS.conditions) return;
    this.conditions.push(condition(label));
    this.#syncRelation();
  }

  removeCondition(key: number): void {
    if (this.conditions.length <= 1) return;
    this.conditions = this.conditions.filter((c) => c.key !== key);
    this.#syncRelation();
  }

  addMember(): void {
    const label = nextLabel(this.members.map((m) => m.label));
    if (label === null || this.members.length >= EVENT_BOUNDS.members) return;
    this.members.push(member(label));
    this.#syncRelation();
  }

  removeMember(key: number): void {
    if (this.members.length <= 1) return;
    this.members = this.members.filter((m) => m.key !== key);
    this.#syncRelation();
  }

  addStep(): void {
    if (this.steps.length < EVENT_BOUNDS.steps) this.steps.push(step());
  }

  removeStep(key: number): void {
    if (this.steps.length > 1) this.steps = this.steps.filter((s) => s.key !== key);
  }

  /** Moves a step up (-1) or down (+1) in the sequence. */
  moveStep(key: number, by: -1 | 1): void {
    const from = this.steps.findIndex((s) => s.key === key);
    const to = from + by;
    if (from < 0 || to < 0 || to >= this.steps.length) return;
    const next = [...this.steps];
    const [moved] = next.splice(from, 1);
    if (moved) next.splice(to, 0, moved);
    this.steps = next;
  }

  toInput(): EventInput {
    const stored = (part: 'name' | 'description', typed: string): string => {
      const [shown, original] = this.#shown?.[part] ?? ['', ''];
      return this.#shown !== null && typed === shown.trim() ? original : typed;
    };
    const common = {
      name: stored('name', this.name.trim()),
      description: stored('description', this.description.trim()),
      sources: [...this.sources],
    };
    const window = { value: this.windowValue ?? 0, unit: this.windowUnit };
    const windowed = {
      triggerEvent: this.triggerEvent || null,
      object: this.object,
      window,
      comparator: this.comparator,
      threshold: this.threshold ?? 0,
    };
    switch (this.kind) {
      case 'simple':
        return {
          kind: 'simple',
          ...common,
          relation: this.relation.trim(),
          conditions: this.conditions.map((c) => ({
            label: c.label,
            field: c.field,
            filter: c.filter,
            mode: c.mode,
            // A regex or an exact text is taken as typed; a number without the spaces around it.
            value: c.filter === 'number' ? c.value.trim() : c.value,
          })),
        };
      case 'count':
        return { kind: 'count', ...common, ...windowed };
      case 'distinct':
        return { kind: 'distinct', ...common, ...windowed, field: this.field };
      case 'average':
        return { kind: 'average', ...common, ...windowed, field: this.field };
      case 'cep':
        return {
          kind: 'cep',
          ...common,
          object: this.object,
          window,
          continuity: this.continuity,
          steps: this.steps.map((s) => ({ event: s.event, min: s.min ?? 0, max: s.max ?? 0 })),
        };
      case 'combined':
        return {
          kind: 'combined',
          ...common,
          relation: this.relation.trim(),
          members: this.members.map((m) => ({ label: m.label, event: m.event })),
        };
    }
  }

  /**
   * The event as the live check reads it: the blanks the person has not filled yet get a stand-in
   * (the first candidate field, a zero) so the rest of the definition, the relation above all, is
   * still checked as it is typed. `blanks` lists the paths stood in for: their problems are the
   * form's own business (said when it is submitted), not the check's.
   */
  probe(fields: readonly string[]): { input: EventInput; blanks: ReadonlySet<string> } {
    const input = this.toInput();
    // A plain set: built here and read once by the caller, never watched.
    // eslint-disable-next-line svelte/prefer-svelte-reactivity
    const blanks = new Set<string>();
    const field = fields[0] ?? 'log_id';
    if (input.name === '') {
      input.name = '-';
      blanks.add('name');
    }
    if (input.kind === 'simple') {
      input.conditions.forEach((c, i) => {
        if (c.field === '') {
          c.field = field;
          blanks.add(`conditions[${i}].field`);
        }
        if (c.filter === 'number' && (c.value === '' || !Number.isFinite(Number(c.value)))) {
          c.value = '0';
          blanks.add(`conditions[${i}].value`);
        }
      });
    }
    if (input.kind !== 'simple' && input.kind !== 'combined' && this.windowValue === null) {
      input.window.value = 1;
      blanks.add('window');
    }
    if (input.kind === 'count' || input.kind === 'distinct' || input.kind === 'average') {
      if (this.threshold === null) blanks.add('threshold');
      if (input.kind !== 'count' && input.field === '') {
        input.field = field;
        blanks.add('field');
      }
    }
    if (input.kind === 'cep') {
      input.steps.forEach((s, i) => {
        if (s.event === '') {
          s.event = '-';
          blanks.add(`steps[${i}].event`);
        }
        if (s.min < 1) {
          s.min = 1;
          blanks.add(`steps[${i}].min`);
        }
        if (s.max < s.min) {
          s.max = s.min;
          blanks.add(`steps[${i}].max`);
        }
      });
    }
    if (input.kind === 'combined') {
      input.members.forEach((m, i) => {
        if (m.event === '') {
          m.event = '-';
          blanks.add(`members[${i}].event`);
        }
      });
    }
    return { input, blanks };
  }

  /** The form's own refusals, by form path: blanks first, then the schema's. */
  validate(): Record<string, string> {
    const errors: Record<string, string> = {};
    const put = (field: string, message: string): void => {
      errors[field] ??= message;
    };
    const needed = (field: string): string => t('validation.required', { field: this.label(field) });
    if (this.kind === 'simple')
      this.conditions.forEach((c, i) => {
        if (c.field === '') put(`conditions[${i}].field`, t('events.editor.chooseField'));
      });
    if (this.kind !== 'simple' && this.kind !== 'combined' && this.windowValue === null)
      put('window', needed('window'));
    if ((this.kind === 'count' || this.kind === 'distinct' || this.kind === 'average') && this.threshold === null)
      put('threshold', needed('threshold'));
    if ((this.kind === 'distinct' || this.kind === 'average') && this.field === '')
      put('field', t('events.editor.chooseField'));
    if (this.kind === 'cep')
      this.steps.forEach((s, i) => {
        if (s.event === '') put(`steps[${i}].event`, t('events.editor.chooseEvent'));
        if (s.min === null) put(`steps[${i}].min`, needed(`steps[${i}].min`));
        if (s.max === null) put(`steps[${i}].max`, needed(`steps[${i}].max`));
      });
    if (this.kind === 'combined')
      this.members.forEach((m, i) => {
        if (m.event === '') put(`members[${i}].event`, t('events.editor.chooseEvent'));
      });
    for (const problem of schemaProblems(eventInputSchema, this.toInput())) {
      const mapped = this.fieldError(problem);
      if (mapped) put(mapped.field, mapped.message);
    }
    return errors;
  }

  /** Every part of a refusal the form shows an input for, with its message. */
  fieldErrors(error: unknown): { field: string; message: string }[] {
    if (!(error instanceof ApiError)) return [];
    return error.parts().flatMap((part) => this.fieldError(part) ?? []);
  }

  /** A refusal as the message of the input it names (null when the form shows no such input). */
  fieldError(part: ApiError): { field: string; message: string } | null {
    if (!part.field) return null;
    const field = formPath(part.field);
    if (!this.shows(field)) return null;
    return { field, message: this.message(part, field) };
  }

  /** Whether the form, as the current kind shows it, has an input for a form path. */
  shows(field: string): boolean {
    if (COMMON.has(field) || BY_KIND[this.kind].has(field)) return true;
    const item = /^(conditions|steps|members)\[(\d+)\](?:\.(\w+))?$/.exec(field);
    if (!item) return false;
    const [, list = '', index, prop] = item;
    if (!BY_KIND[this.kind].has(list)) return false;
    const length =
      list === 'conditions' ? this.conditions.length : list === 'steps' ? this.steps.length : this.members.length;
    return Number(index) < length && (prop === undefined || (ITEM_PROPS[list]?.has(prop) ?? false));
  }

  /** A form path's label, as the form shows it. */
  label(field: string): string {
    const item = /^(conditions|steps|members)\[(\d+)\](?:\.(\w+))?$/.exec(field);
    if (item) {
      const [, list = '', index = '0', prop] = item;
      const i = Number(index);
      const base =
        list === 'conditions'
          ? t('events.item.condition', { label: this.conditions[i]?.label ?? '' })
          : list === 'members'
            ? t('events.item.member', { label: this.members[i]?.label ?? '' })
            : t('events.item.step', { n: i + 1 });
      const key = `events.item.${prop ?? ''}`;
      return prop && isMessageKey(key) ? t('events.item.of', { item: base, what: t(key) }) : base;
    }
    if (field === 'field') return t(this.kind === 'average' ? 'events.field.meanField' : 'events.field.distinctField');
    const key = `events.field.${field}`;
    return isMessageKey(key) ? t(key) : field;
  }

  message(part: ApiError, field: string): string {
    if (part.code !== 'VALIDATION_FAILED') return errorMessage(part);
    const own = problemText(part) ?? customProblemText(part);
    if (own) return own;
    const { code, origin, minimum } = part.params;
    if (code === 'too_small' && origin === 'string' && minimum === 1)
      return t('validation.required', { field: this.label(field) });
    return t('error.VALIDATION_FAILED', { field: this.label(field), detail: detailText(part) });
  }

  /** A form path's current value, to tell whether it changed since the engine refused it. */
  valueOf(field: string): string {
    const input = this.toInput() as unknown as Record<string, unknown>;
    let value: unknown = input;
    for (const part of field.replace(/\[(\d+)\]/g, '.$1').split('.')) {
      value = (value as Record<string, unknown> | undefined)?.[part];
    }
    return JSON.stringify(value ?? null);
  }

  #autoRelation(): string {
    return this.labels.join(this.kind === 'combined' ? ' | ' : ' & ');
  }

  #syncRelation(): void {
    if (this.relationAuto) this.relation = this.#autoRelation();
  }

  #snapshot(): string {
    return JSON.stringify(this.toInput());
  }
}
