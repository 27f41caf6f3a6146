/**
 * The basic rules' vocabulary as the console uses it, taken from the contracts' schemas (the
 * protection levels, the custom rules' locations and bounds), with the names the console gives them.
 */
import type { z } from 'zod';
import {
  customRuleInputSchema,
  groupSettingSchema,
  type BasicRuleGroupView,
  type CustomRuleView,
} from '$lib/contracts.ts';
import { isMessageKey, t } from '$lib/i18n.svelte.ts';

export const PROTECTION_LEVELS = groupSettingSchema.shape.level.options;
export type ProtectionLevel = (typeof PROTECTION_LEVELS)[number];

export const CUSTOM_LOCATIONS = customRuleInputSchema.shape.location.options;
export type CustomLocation = (typeof CUSTOM_LOCATIONS)[number];

const conditions = customRuleInputSchema.shape.conditions;
export const CONDITION_LOCATIONS = conditions.element.shape.location.options;
export type ConditionLocation = (typeof CONDITION_LOCATIONS)[number];

/** The conditions a name+value, all or any rule may hold: the schema's own bound. */
export const MAX_CONDITIONS =
  conditions.def.checks?.flatMap((check) => {
    const def = check._zod.def as { check: string; maximum?: number };
    return def.check === 'max_length' && def.maximum !== undefined ? [def.maximum] : [];
  })[0] ?? Infinity;

/** The longest rule name and remark the schema takes. */
export const CUSTOM_RULE_BOUNDS = {
  name: customRuleInputSchema.shape.name.maxLength ?? undefined,
  remark: customRuleInputSchema.shape.remark.unwrap().maxLength ?? undefined,
};

export type CustomRuleInput = z.input<typeof customRuleInputSchema>;
export type CustomRule = CustomRuleView;

/** Locations whose regex comes with a name regex ('.*' = any name); several pairs allowed. */
export const PAIR_LOCATIONS: readonly ConditionLocation[] = ['param_value', 'header_value', 'cookie_value'];
/** The only locations a plugin-access site supports. */
export const PLUGIN_LOCATIONS: readonly CustomLocation[] = ['url', 'param_name'];

/**
 * A custom rule's location as the engine answered it (the rule view states a string), checked
 * against the input's vocabulary: one the console does not know is an error, not a guess.
 */
export function customLocation(value: string): CustomLocation {
  const known = CUSTOM_LOCATIONS.find((location) => location === value);
  if (known === undefined) throw new Error(`unknown custom rule location ${value}`);
  return known;
}

export function conditionLocation(value: string): ConditionLocation {
  const known = CONDITION_LOCATIONS.find((location) => location === value);
  if (known === undefined) throw new Error(`unknown condition location ${value}`);
  return known;
}

/** A stored rule as the input that gives it again (to change one thing of it). */
export function customRuleInputOf(rule: CustomRule): CustomRuleInput {
  return {
    name: rule.name,
    remark: rule.remark,
    enabled: rule.enabled,
    location: customLocation(rule.location),
    conditions: rule.conditions.map((c) => ({ ...c, location: conditionLocation(c.location) })),
  };
}

/** A location's name in the console's language. */
export function locationName(location: string): string {
  const key = `location.${location}`;
  return isMessageKey(key) ? t(key) : location;
}

/** A rule group's type in the console's language (the engine's English name for a group the catalogue lacks). */
export function groupName(group: Pick<BasicRuleGroupView, 'id' | 'name'>): string {
  const key = `group.${group.id}`;
  return isMessageKey(key) ? t(key) : group.name;
}

/** A protection level's name; a rule's level is its number, 1 (loose) to 4 (very strict). */
export function levelName(level: ProtectionLevel | number): string {
  const name = typeof level === 'number' ? PROTECTION_LEVELS[level - 1] : level;
  return t(`level.${name ?? 'very_strict'}`);
}
