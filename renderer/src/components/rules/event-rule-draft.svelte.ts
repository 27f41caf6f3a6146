/**
 * The form of an event-based rule (spec 2.5: risk-control rules in A, advanced security rules in B):
 * the API's rule as the inputs hold it, checked with the engine's schema, and refusals placed on
 * the input they name (`events[2]` on the events list, `notify.emails[1]` on the line of the e-mail
 * box that address came from, as the key `notify.emails#<line>`).
 */
import { ruleInputSchema, ruleView, type RuleInput, type RuleView } from '$lib/contracts.ts';
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';
import { customProblemText, problemText } from '$lib/problem-text.ts';
import { schemaProblems } from '$lib/validation.ts';
import { entryLines, lineOf } from '$lib/entry-lines.ts';

export type RuleAction = RuleView['action'];
export type RuleTarget = RuleView['target'];
export const RULE_ACTIONS: readonly RuleAction[] = ruleView.shape.action.options;
export const RULE_TARGETS: readonly RuleTarget[] = ruleView.shape.target.options;
export const RULE_BOUNDS = {
  name: ruleInputSchema.shape.name.maxLength ?? 64,
  description: ruleInputSchema.shape.description.unwrap().maxLength ?? 256,
};
export type SyslogProtocol = NonNullable<RuleView['notify']['syslog']>['protocol'];
export const SYSLOG_PROTOCOLS: readonly SyslogProtocol[] = ['udp', 'tcp'];
/** A block lasts an hour unless changed. */
const DEFAULT_DURATION = 3600;
/** The engine's defaults: no notification, at most one every 300 s; syslog's usual port. */
const DEFAULT_THROTTLE = 300;
const DEFAULT_SYSLOG_PORT = 514;
export const NOTIFY_BOUNDS = { emails: 20, throttleSeconds: 86_400 } as const;

const FIELDS = new Set([
  'name',
  'description',
  'events',
  'action',
  'target',
  'durationSeconds',
  'priority',
  'notify.emails',
  'notify.webhook.url',
  'notify.webhook.secret',
  'notify.syslog.host',
  'notify.syslog.port',
  'notify.throttleSeconds',
]);

/** The key of an e-mail line's message: the form shows each bad address at its line. */
export function emailLineKey(line: number): string {
  return `notify.emails#${line}`;
}

/** The e-mail lines named by a form's messages, in order. */
export function emailErrorLines(errors: Record<string, string>): number[] {
  return Object.keys(errors)
    .flatMap((key) => /^notify\.emails#(\d+)$/.exec(key)?.[1] ?? [])
    .map(Number)
    .sort((a, b) => a - b);
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
  /** Notifications: e-mail addresses one per line, a webhook, syslog, and the throttle. */
  emails = $state('');
  webhook = $state(false);
  webhookUrl = $state('');
  webhookSecret = $state('');
  /** The stored rule has a webhook secret (never sent to the console): an empty field keeps it. */
  webhookSecretSet = $state(false);
  syslog = $state(false);
  syslogHost = $state('');
  syslogPort = $state<number | null>(DEFAULT_SYSLOG_PORT);
  syslogProtocol = $state<SyslogProtocol>('udp');
  throttleSeconds = $state<number | null>(DEFAULT_THROTTLE);

  load(rule: RuleView | null, minimumPriority: number): void {
    this.minimumPriority = minimumPriority;
    this.name = rule?.name ?? '';
    this.description = rule?.description ?? '';
    this.events = rule ? [...rule.events] : [];
    this.action = rule?.action ?? 'block';
    this.target = rule?.target ?? 'ip';
    this.durationSeconds = rule?.durationSeconds ?? DEFAULT_DURATION;
    this.priority = rule && rule.action === 'block' ? rule.priority : 1;
    const notify = rule?.notify;
    this.emails = notify ? notify.emails.join('\n') : '';
    this.webhook = Boolean(notify?.webhook);
    this.webhookUrl = notify?.webhook?.url ?? '';
    this.webhookSecret = '';
    this.webhookSecretSet = notify?.webhook?.secretSet ?? false;
    this.syslog = Boolean(notify?.syslog);
    this.syslogHost = notify?.syslog?.host ?? '';
    this.syslogPort = notify?.syslog?.port ?? DEFAULT_SYSLOG_PORT;
    this.syslogProtocol = notify?.syslog?.protocol ?? 'udp';
    this.throttleSeconds = notify?.throttleSeconds ?? DEFAULT_THROTTLE;
  }

  /** Whether the rule sends any notification. */
  get notifies(): boolean {
    return this.#emailList().entries.length > 0 || this.webhook || this.syslog;
  }

  #emailList() {
    return entryLines(this.emails);
  }

  notifyInput(): RuleInput['notify'] {
    return {
      emails: this.#emailList().entries,
      webhook: this.webhook ? { url: this.webhookUrl.trim(), secret: this.webhookSecret } : null,
      syslog: this.syslog
        ? { host: this.syslogHost.trim(), port: this.syslogPort ?? 0, protocol: this.syslogProtocol }
        : null,
      throttleSeconds: this.throttleSeconds ?? -1,
    };
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
      notify: this.notifyInput(),
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
    if (this.syslog && this.syslogPort === null)
      errors['notify.syslog.port'] = t('validation.required', { field: this.label('notify.syslog.port') });
    if (this.throttleSeconds === null)
      errors['notify.throttleSeconds'] = t('validation.required', { field: this.label('notify.throttleSeconds') });
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

  /**
   * An engine problem as the form's key and text: `events[2]`, `events.2` and `events` all on the
   * events list; `notify.emails[1]` and `notify.emails.1` on the line of the address it names.
   */
  fieldError(part: ApiError): { field: string; message: string } | null {
    if (!part.field) return null;
    if (/^events([.[]\d+\]?)?$/.test(part.field)) return { field: 'events', message: this.message(part, 'events') };
    const email = /^notify\.emails[.[](\d+)\]?$/.exec(part.field);
    if (email) {
      const line = lineOf(this.#emailList(), Number(email[1]));
      const message = this.message(part, 'notify.emails');
      return line === null
        ? { field: 'notify.emails', message }
        : { field: emailLineKey(line), message: t('eventRules.notify.emailLine', { line, detail: message }) };
    }
    if (!FIELDS.has(part.field)) return null;
    return { field: part.field, message: this.message(part, part.field) };
  }

  label(field: string): string {
    const key = `eventRules.field.${field}`;
    return isMessageKey(key) ? t(key) : field;
  }

  message(part: ApiError, field: string): string {
    if (part.code !== 'VALIDATION_FAILED') return errorMessage(part);
    const notify = notifyProblemText(part);
    if (notify) return notify;
    const own = problemText(part) ?? customProblemText(part);
    if (own) return own;
    const { code, origin, minimum } = part.params;
    if (code === 'too_small' && origin === 'string' && minimum === 1)
      return t('validation.required', { field: this.label(field) });
    return t('error.VALIDATION_FAILED', { field: this.label(field), detail: detailText(part) });
  }
}

/** The notification settings' own refusals (engine/shared/event-shape.ts) in the console's language. */
function notifyProblemText(part: ApiError): string | null {
  const { code, format } = part.params;
  if (code === 'invalid_format' && format === 'email') return t('eventRules.notify.problem.email');
  if (code === 'invalid_format' && part.field === 'notify.syslog.host') return t('eventRules.notify.problem.host');
  if (code === 'custom' && /http:\/\/ or https:\/\//.test(part.message)) return t('eventRules.notify.problem.url');
  return null;
}
