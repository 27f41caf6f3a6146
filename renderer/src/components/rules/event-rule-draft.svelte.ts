/**
 * The form of an event-based rule (spec 2.5: risk-control rules in A, advanced security rules in B):
 * the API's rule as the inputs hold it, checked with the engine's schema, and refusals placed on
 * the input they name (`events[2]` on the events list).
 */
import { ruleInputSchema, ruleView, type RuleInput, type RuleView } from '$lib/contracts.ts';
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';
import { customProblemText, problemText } from '$lib/problem-text.ts';
import { schemaProblems } from '$lib/validation.ts';

export type RuleAction = RuleView['action'];
export type RuleTarget = RuleView['target'];
export const RULE_ACTIONS: readonly RuleAction[] = ruleView.shape.action.options;
export const RULE_TARGETS: readonly RuleTarget[] = ruleView.shape.target.options;
export const RULE_BOUNDS = {
  name: ruleInputSchema.shape.name.maxLength ?? 64,
  description: ruleInputSchema.shape.description.unwrap().maxLength ?? 256,
};
/** A block lasts an hour unless changed. */
const DEFAULT_DURATION = 3600;
/**
 * Notifications are not edited in this form: a rule keeps those it has, a new one starts with the
 * engine's defaults (none, at most one every 300 s).
 */
const NO_NOTIFY: RuleInput['notify'] = { emails: [], webhook: null, syslog: null, throttleSeconds: 300 };

const FIELDS = new Set(['name', 'description', 'events', 'action', 'target', 'durationSeconds', 'priority']);

/** `events[2]`, `events.2` and `events` all as `events`: the list shows one message. */
export function rulePath(field: string): string {
  return /^events([.[]\d+\]?)?$/.test(field) ? 'events' : field;
}

export class EventRuleDraft {
  name = $state('');
  description = $state('');
  events = $state<string[]>([]);
  action = $state<RuleAction>('block');
  target = $state<RuleTarget>('ip');
  durationSeconds = $state<number | null>(DEFAULT_DURATION);
  /** Null while the number box is empty. */
  priority = $state<number | null>(1);
  /** The priority of a rule with no action in this edition (listRules' minimumPriority). */
  minimumPriority = $state(0);
  #notify: RuleInput['notify'] = NO_NOTIFY;

  load(rule: RuleView | null, minimumPriority: number): void {
    this.minimumPriority = minimumPriority;
    this.name = rule?.name ?? '';
    this.description = rule?.description ?? '';
    this.events = rule ? [...rule.events] : [];
    this.action = rule?.action ?? 'block';
    this.target = rule?.target ?? 'ip';
    this.durationSeconds = rule?.durationSeconds ?? DEFAULT_DURATION;
    this.priority = rule && rule.action === 'block' ? rule.priority : 1;
    this.#notify = rule?.notify ?? NO_NOTIFY;
  }

  /** The priority the form shows: the edition's minimum for a rule with no action. */
  get shownPriority(): number | null {
    return this.action === 'none' ? this.minimumPriority : this.priority;
  }

  toInput(siteId: string): RuleInput {
    return {
      name: this.name.trim(),
      description: this.description.trim(),
      siteId,
      events: [...this.events],
      action: this.action,
      target: this.target,
      durationSeconds: this.durationSeconds ?? 0,
      notify: this.#notify,
      // No action: the engine fills the edition's minimum.
      ...(this.action === 'block' ? { priority: this.priority ?? 0 } : {}),
    };
  }

  validate(siteId: string): Record<string, string> {
    const errors: Record<string, string> = {};
    if (this.durationSeconds === null)
      errors.durationSeconds = t('validation.required', { field: this.label('durationSeconds') });
    if (this.action === 'block' && this.priority === null)
      errors.priority = t('validation.required', { field: this.label('priority') });
    else if (this.action === 'block' && (this.priority ?? 0) < 1)
      errors.priority = t('problem.priority_block_minimum', { minimum: 1 });
    if (this.events.length === 0) errors.events = t('eventRules.form.eventsRequired');
    for (const problem of schemaProblems(ruleInputSchema, this.toInput(siteId))) {
      const mapped = this.fieldError(problem);
      if (mapped) errors[mapped.field] ??= mapped.message;
    }
    return errors;
  }

  fieldErrors(error: unknown): { field: string; message: string }[] {
    if (!(error instanceof ApiError)) return [];
    return error.parts().flatMap((part) => this.fieldError(part) ?? []);
  }

  fieldError(part: ApiError): { field: string; message: string } | null {
    if (!part.field) return null;
    const field = rulePath(part.field);
    if (!FIELDS.has(field)) return null;
    return { field, message: this.message(part, field) };
  }

  label(field: string): string {
    const key = `eventRules.field.${field}`;
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
}
