/**
 * The custom-rule form (spec 2.5): the chosen location and its rows of regular expressions, shaped
 * into the API's conditions, with the client's own checks and the engine's field errors (API paths
 * such as `conditions.1.pattern`) kept at the row they name until that value is edited.
 */
import { ApiError } from '$lib/api.ts';
import {
  CUSTOM_RULE_BOUNDS,
  conditionLocation,
  customLocation,
  PAIR_LOCATIONS,
  PLUGIN_LOCATIONS,
  type ConditionLocation,
  type CustomLocation,
  type CustomRule,
  type CustomRuleInput,
} from './rule-vocabulary.ts';
import { detailText, errorMessage } from '$lib/errors.ts';
import { t } from '$lib/i18n.svelte.ts';

/** How a location takes its regexes: one; several (name, value) pairs; several conditions of any location. */
export type LocationShape = 'single' | 'pair' | 'combined';

export function shapeOf(location: CustomLocation): LocationShape {
  if (location === 'all' || location === 'any') return 'combined';
  return isPairLocation(location) ? 'pair' : 'single';
}

export function isPairLocation(location: CustomLocation): boolean {
  return (PAIR_LOCATIONS as readonly string[]).includes(location);
}

/** Whether a site of this access method can use the location (plugin access: request URL and parameter name only). */
export function locationAllowed(location: CustomLocation, plugin: boolean): boolean {
  return !plugin || PLUGIN_LOCATIONS.includes(location);
}

export interface ConditionRow {
  /** Stable across removals, for the keyed rows. */
  key: number;
  location: ConditionLocation;
  name: string;
  pattern: string;
}

const ANY_NAME = '.*';

export class CustomRuleDraft {
  name = $state('');
  remark = $state('');
  enabled = $state(true);
  location = $state<CustomLocation>('url');
  rows = $state<ConditionRow[]>([]);
  readonly shape: LocationShape = $derived(shapeOf(this.location));
  #nextKey = 0;

  constructor(rule: CustomRule | null = null) {
    this.load(rule);
  }

  /** Fills the form from a rule, or empties it for a new one. */
  load(rule: CustomRule | null): void {
    this.name = rule?.name ?? '';
    this.remark = rule?.remark ?? '';
    this.enabled = rule?.enabled ?? true;
    this.location = rule ? customLocation(rule.location) : 'url';
    this.rows =
      rule && rule.conditions.length > 0
        ? rule.conditions.map((c) => this.#row(conditionLocation(c.location), c.name, c.pattern))
        : [this.#row('url', '', '')];
  }

  /**
   * Another location keeps what was typed where it still fits: the first regex for a single location,
   * every value regex for a pair location, and the rows as they are for all / any.
   */
  setLocation(location: CustomLocation): void {
    const shape = shapeOf(location);
    const first = this.rows[0] ?? this.#row('url', '', '');
    if (shape === 'single') {
      this.rows = [{ ...first, location: location as ConditionLocation, name: '' }];
    } else if (shape === 'pair') {
      this.rows = this.rows.map((r) => ({
        ...r,
        location: location as ConditionLocation,
        name: isPairLocation(r.location) ? r.name : ANY_NAME,
      }));
    }
    this.location = location;
  }

  setRowLocation(key: number, location: ConditionLocation): void {
    this.rows = this.rows.map((r) =>
      r.key === key ? { ...r, location, name: isPairLocation(location) ? r.name || ANY_NAME : '' } : r,
    );
  }

  addRow(): void {
    const location: ConditionLocation = this.shape === 'pair' ? (this.location as ConditionLocation) : 'url';
    this.rows = [...this.rows, this.#row(location, isPairLocation(location) ? ANY_NAME : '', '')];
  }

  removeRow(key: number): void {
    if (this.rows.length > 1) this.rows = this.rows.filter((r) => r.key !== key);
  }

  toInput(): CustomRuleInput {
    const conditions = this.rows.map((r) => {
      const location = this.shape === 'combined' ? r.location : (this.location as ConditionLocation);
      return { location, name: isPairLocation(location) ? r.name.trim() : '', pattern: r.pattern };
    });
    return {
      name: this.name.trim(),
      remark: this.remark.trim(),
      enabled: this.enabled,
      location: this.location,
      conditions,
    };
  }

  /** The client's checks, by API path; the engine checks the regexes themselves. */
  validate(): Record<string, string> {
    const errors: Record<string, string> = {};
    const input = this.toInput();
    if (!input.name) errors.name = t('validation.required', { field: t('customForm.name') });
    else if (CUSTOM_RULE_BOUNDS.name !== undefined && input.name.length > CUSTOM_RULE_BOUNDS.name)
      errors.name = t('validation.tooLong', { field: t('customForm.name'), max: CUSTOM_RULE_BOUNDS.name });
    const remark = input.remark ?? '';
    if (CUSTOM_RULE_BOUNDS.remark !== undefined && remark.length > CUSTOM_RULE_BOUNDS.remark)
      errors.remark = t('validation.tooLong', { field: t('field.remark'), max: CUSTOM_RULE_BOUNDS.remark });
    input.conditions.forEach((c, i) => {
      if (isPairLocation(c.location) && !c.name)
        errors[`conditions.${i}.name`] = t('validation.required', { field: t('customForm.nameRegex') });
      if (!c.pattern) errors[`conditions.${i}.pattern`] = t('validation.required', { field: t('customForm.pattern') });
    });
    return errors;
  }

  /** The current value at an API path, to tell whether a field changed since the engine refused it. */
  valueOf(field: string): string {
    let value: unknown = this.toInput();
    for (const part of field.split('.')) value = (value as Record<string, unknown> | undefined)?.[part];
    return JSON.stringify(value ?? null);
  }

  /** Whether the form shows a field the engine may name (a path into the input). */
  shows(field: string): boolean {
    if (field === 'name' || field === 'remark' || field === 'location') return true;
    const m = /^conditions\.(\d+)\.(location|name|pattern)$/.exec(field);
    return m !== null && Number(m[1]) < this.rows.length;
  }

  #row(location: ConditionLocation, name: string, pattern: string): ConditionRow {
    return { key: this.#nextKey++, location, name, pattern };
  }
}

/**
 * The text shown at a field for an engine error naming it: the engine's own explanation (a regex
 * error names what is wrong), without the path it starts with; other codes as the console words them.
 */
export function fieldErrorText(error: ApiError): string {
  if (error.code !== 'VALIDATION_FAILED' || !error.field) return errorMessage(error);
  const detail = detailText(error);
  return detail.charAt(0).toUpperCase() + detail.slice(1);
}
