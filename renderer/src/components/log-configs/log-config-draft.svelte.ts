/**
 * The log configuration form's state (spec 2.2): the API's configuration as the inputs hold it,
 * checked with the engine's own schema (`logConfigInputSchema`, from the contracts), and refusals,
 * the form's own or the engine's (`fields[2].regex`), placed on the input they name. In an edit the
 * field areas loaded are locked: the engine refuses any change to them (`fields_locked`).
 */
import { logConfigInputSchema, logConfigView, type LogConfigInput, type LogConfigView } from '$lib/contracts.ts';
import { ApiError } from '$lib/api.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';
import { schemaProblems } from '$lib/validation.ts';
import { problemPath } from './log-config-paths.ts';

const view = logConfigView.shape;
const input = logConfigInputSchema.shape;
const extractTime = view.time.options[1].shape;

/** The closed vocabularies of a configuration, from the schema of its view. */
export const KAFKA_MECHANISMS = view.broker.unwrap().shape.mechanism.options;
export const LOG_FIELD_TYPES = view.fields.element.options[0].shape.type.options;
export type FieldType = (typeof LOG_FIELD_TYPES)[number];
export type KeyTarget = keyof LogConfigView['keyFields'];
export type Mechanism = (typeof KAFKA_MECHANISMS)[number];
export const LOG_KEY_TARGETS = Object.keys(view.keyFields.shape) as KeyTarget[];
export const PREDEFINED_LOG_TIME_FORMAT = extractTime.format.options[0].value;

/** The schema's bounds, for the inputs' own limits (maxlength). */
export const LOG_CONFIG_BOUNDS = {
  name: input.name.maxLength ?? undefined,
  timeFormat: extractTime.format.options[1].shape.custom.maxLength ?? undefined,
  timezone: input.timezone.unwrap().maxLength ?? undefined,
};

export interface FieldArea {
  /** A stable key for the list (areas are added and removed). */
  key: number;
  kind: 'regex' | 'json';
  name: string;
  type: FieldType;
  regex: string;
  /** Null while the number box is empty. */
  group: number | null;
  source: string;
  required: boolean;
}

export interface BrokerDraft {
  address: string;
  topic: string;
  account: string;
  /** Empty: none, or in an edit the stored one. */
  password: string;
  mechanism: Mechanism;
  tls: boolean;
  /** PEM certificates of the brokers' CA; empty: the system's CAs. */
  ca: string;
}

let nextKey = 1;
export function fieldArea(kind: 'regex' | 'json', from: Partial<FieldArea> = {}): FieldArea {
  return { name: '', type: 'string', regex: '', group: 1, source: '', required: false, ...from, kind, key: nextKey++ };
}

/** The browser's own time zone, offered for a new configuration. */
function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return '';
  }
}

type KeyFields = Record<KeyTarget, string>;
const noKeyFields = (): KeyFields => ({ ip: '', device: '', user: '', custom1: '', custom2: '' });

export class LogConfigDraft {
  name = $state('');
  method = $state<'tcp' | 'broker'>('tcp');
  broker = $state<BrokerDraft>({
    address: '',
    topic: '',
    account: '',
    password: '',
    mechanism: 'plain',
    tls: false,
    ca: '',
  });
  /** An edit of a BROKER configuration whose password is stored: an empty box keeps it. */
  passwordSet = $state(false);
  templateType = $state<'plain_text' | 'json'>('plain_text');
  timeMode = $state<'current' | 'extract'>('current');
  formatKind = $state<'predefined' | 'custom'>('predefined');
  customFormat = $state('');
  timeField = $state('');
  timezone = $state(browserZone());
  fields = $state<FieldArea[]>([]);
  keyFields = $state<KeyFields>(noKeyFields());
  intelligence = $state(false);
  sampleData = $state('');
  /** An edit: the loaded areas cannot change and none can be added. */
  locked = $state(false);
  #baseline = $state('');
  /** The key fields as loaded (an edit asks before they change). */
  savedKeyFields = $state<KeyFields>(noKeyFields());

  constructor() {
    this.#baseline = this.#snapshot();
  }

  load(view: LogConfigView, options: { locked: boolean }): void {
    this.name = view.name;
    this.method = view.method ?? 'tcp';
    this.broker = {
      address: view.broker?.address ?? '',
      topic: view.broker?.topic ?? '',
      account: view.broker?.account ?? '',
      password: '',
      mechanism: view.broker?.mechanism ?? 'plain',
      tls: view.broker?.tls ?? false,
      ca: view.broker?.ca ?? '',
    };
    this.passwordSet = view.broker?.passwordSet ?? false;
    this.templateType = view.templateType;
    if (view.time.mode === 'current') {
      this.timeMode = 'current';
    } else {
      this.timeMode = 'extract';
      this.formatKind = typeof view.time.format === 'string' ? 'predefined' : 'custom';
      this.customFormat = typeof view.time.format === 'string' ? '' : view.time.format.custom;
      this.timeField = view.time.field;
    }
    this.timezone = view.timezone;
    this.fields = view.fields.map((f) =>
      f.kind === 'regex' ? fieldArea('regex', { ...f }) : fieldArea('json', { ...f, group: 1 }),
    );
    const keys = noKeyFields();
    for (const target of LOG_KEY_TARGETS) keys[target] = view.keyFields[target] ?? '';
    this.keyFields = keys;
    this.savedKeyFields = { ...keys };
    this.intelligence = view.intelligence;
    this.sampleData = view.sampleData;
    this.locked = options.locked;
    this.#baseline = this.#snapshot();
  }

  get dirty(): boolean {
    return this.#snapshot() !== this.#baseline;
  }

  markSaved(): void {
    this.#baseline = this.#snapshot();
    this.savedKeyFields = { ...this.keyFields };
  }

  /** The names of the configured fields, for the key-field selects. */
  get fieldNames(): string[] {
    const names = this.fields.map((f) => f.name.trim());
    return names.filter((n, i) => n !== '' && names.indexOf(n) === i);
  }

  get hasRequired(): boolean {
    return this.fields.some((f) => f.required);
  }

  add(kind: 'regex' | 'json'): void {
    if (this.locked) return;
    this.fields.push(fieldArea(kind, { group: kind === 'regex' ? 1 : null }));
  }

  remove(key: number): void {
    if (this.locked) return;
    this.fields = this.fields.filter((f) => f.key !== key);
  }

  toInput(): LogConfigInput {
    const fields = this.fields.map((f): LogConfigInput['fields'][number] =>
      f.kind === 'regex'
        ? {
            kind: 'regex',
            name: f.name.trim(),
            type: f.type,
            regex: f.regex,
            group: f.group ?? 0,
            required: f.required,
          }
        : { kind: 'json', name: f.name.trim(), type: f.type, source: f.source.trim(), required: f.required },
    );
    const keyFields: LogConfigInput['keyFields'] = {};
    for (const target of LOG_KEY_TARGETS) if (this.keyFields[target]) keyFields[target] = this.keyFields[target];
    const input: LogConfigInput = {
      name: this.name.trim(),
      method: this.method,
      broker: null,
      templateType: this.templateType,
      time:
        this.timeMode === 'current'
          ? { mode: 'current' }
          : {
              mode: 'extract',
              format:
                this.formatKind === 'predefined' ? PREDEFINED_LOG_TIME_FORMAT : { custom: this.customFormat.trim() },
              field: this.templateType === 'json' ? this.timeField.trim() : this.timeField,
            },
      fields,
      keyFields,
      intelligence: this.intelligence,
      sampleData: this.sampleData,
    };
    if (this.timezone.trim() !== '') input.timezone = this.timezone.trim();
    if (this.method === 'broker') {
      input.broker = {
        address: this.broker.address.trim(),
        topic: this.broker.topic.trim(),
        account: this.broker.account.trim(),
        mechanism: this.broker.mechanism,
        tls: this.broker.tls,
        ca: this.broker.tls ? this.broker.ca.trim() : '',
      };
      // An empty box sends none: an edit keeps the stored password (the engine never answers it).
      if (this.broker.password !== '') input.broker.password = this.broker.password;
    }
    return input;
  }

  /** The schema's refusals, by input path (`fields[2].regex`); the engine checks the rest. */
  validate(): Record<string, string> {
    const errors: Record<string, string> = {};
    const problems = schemaProblems(logConfigInputSchema, this.toInput());
    for (const field of this.fields) {
      if (field.kind === 'regex' && field.group === null) {
        const at = `fields.${this.fields.indexOf(field)}.group`;
        problems.push(
          new ApiError(400, 'VALIDATION_FAILED', `${at}: is required`, at, {
            code: 'too_small',
            minimum: 1,
            origin: 'string',
          }),
        );
      }
    }
    for (const problem of problems) {
      const mapped = this.fieldError(problem);
      if (mapped && errors[mapped.field] === undefined) errors[mapped.field] = mapped.message;
    }
    return errors;
  }

  /** Every field an engine refusal names, with its message. */
  fieldErrors(error: unknown): { field: string; message: string }[] {
    if (!(error instanceof ApiError)) return [];
    return error.parts().flatMap((part) => this.fieldError(part) ?? []);
  }

  /** A refusal as the message of the input it names (null when the form shows no such input). */
  fieldError(error: unknown): { field: string; message: string } | null {
    if (!(error instanceof ApiError) || !error.field) return null;
    const field = problemPath(error.field);
    if (!this.shows(field)) return null;
    return { field, message: this.message(error, field) };
  }

  /** Whether the form has an input for a path. */
  shows(field: string): boolean {
    if (field.startsWith('broker')) return this.method === 'broker';
    if (field.startsWith('time.')) return this.timeMode === 'extract';
    return (
      /^(name|method|templateType|timezone|fields|keyFields\.\w+|intelligence|sampleData)$/.test(field) ||
      /^fields\[\d+\]\.(name|type|regex|group|source|required|kind)$/.test(field)
    );
  }

  /** A field's label, as the form shows it. */
  label(field: string): string {
    const area = /^fields\[(\d+)\]\.(\w+)$/.exec(field);
    if (area) {
      const key = `logConfigs.field.${area[2] ?? ''}`;
      const what = isMessageKey(key) ? t(key) : (area[2] ?? '');
      return t('logConfigs.area.label', { n: Number(area[1]) + 1, field: what });
    }
    const key = `logConfigs.field.${field}`;
    return isMessageKey(key) ? t(key) : field;
  }

  message(error: ApiError, field: string): string {
    if (error.code !== 'VALIDATION_FAILED') return errorMessage(error);
    const { code, origin, minimum } = error.params;
    if (code === 'too_small' && origin === 'string' && minimum === 1)
      return t('validation.required', { field: this.label(field) });
    return t('error.VALIDATION_FAILED', { field: this.label(field), detail: detailText(error) });
  }

  /** A field's current value (input path), to tell whether it changed since the engine refused it. */
  valueOf(field: string): string {
    let value: unknown = this.toInput();
    for (const part of field.replace(/\[(\d+)\]/g, '.$1').split('.')) {
      value = (value as Record<string, unknown> | undefined)?.[part];
    }
    return JSON.stringify(value ?? null);
  }

  #snapshot(): string {
    return JSON.stringify({
      ...this.toInput(),
      password: this.broker.password,
      fields: this.fields.map((f) => ({ ...f, key: 0 })),
    });
  }
}
