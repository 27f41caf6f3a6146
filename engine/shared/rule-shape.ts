import { z } from 'zod';
import { CUSTOM_RULE_LOCATIONS, type CustomRuleLocation } from './domain.ts';
import { visibleText } from './text.ts';

/**
 * The basic rules' input shapes, defined once: the engine validates with them (the API's contracts
 * and the basic-rules service) and the console's forms check with the same schemas.
 */

/** Protection levels of a rule group, loosest first (CRS paranoia levels 1 to 4). */
export const PROTECTION_LEVELS = ['loose', 'normal', 'strict', 'very_strict'] as const;
export type ProtectionLevelName = (typeof PROTECTION_LEVELS)[number];

export const protectionLevelSchema = z.enum(PROTECTION_LEVELS);

/** A rule group's switch and level. */
export const groupSettingSchema = z.object({ enabled: z.boolean(), level: protectionLevelSchema }).strict();

export const CUSTOM_RULE_LIMITS = { name: 64, remark: 256, conditionName: 256, conditions: 20 } as const;

type ConditionLocationName = Exclude<CustomRuleLocation, 'all' | 'any'>;
const CONDITION_LOCATIONS = CUSTOM_RULE_LOCATIONS.filter(
  (l): l is ConditionLocationName => l !== 'all' && l !== 'any',
) as [ConditionLocationName, ...ConditionLocationName[]];

const conditionSchema = z
  .object({
    location: z.enum(CONDITION_LOCATIONS),
    name: z
      .string()
      .max(CUSTOM_RULE_LIMITS.conditionName, `must be at most ${CUSTOM_RULE_LIMITS.conditionName} characters`)
      .superRefine(visibleText())
      .default(''),
    // Checked by the service (a valid, linear-time regex for the location): the refusal names the line.
    pattern: z.string(),
  })
  .strict();

/** A custom rule as it is given: its regexes over request locations. */
export const customRuleInputSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'is required')
      .max(CUSTOM_RULE_LIMITS.name, `must be at most ${CUSTOM_RULE_LIMITS.name} characters`)
      .superRefine(visibleText()),
    remark: z
      .string()
      .trim()
      .max(CUSTOM_RULE_LIMITS.remark, `must be at most ${CUSTOM_RULE_LIMITS.remark} characters`)
      .superRefine(visibleText())
      .default(''),
    enabled: z.boolean().default(true),
    location: z.enum(CUSTOM_RULE_LOCATIONS),
    conditions: z
      .array(conditionSchema)
      .min(1, 'needs at least one regex')
      .max(CUSTOM_RULE_LIMITS.conditions, `at most ${CUSTOM_RULE_LIMITS.conditions}`),
  })
  .strict();
export type CustomRuleInput = z.infer<typeof customRuleInputSchema>;
