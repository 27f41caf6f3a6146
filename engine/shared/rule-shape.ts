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

export const WAF_EXCLUSION_LIMITS = { reason: 500, path: 1024, target: 300, perSite: 500, contentTypes: 100 } as const;

/**
 * The request collections an exclusion may take a target from, as the WAF names a match
 * (`ARGS:q`, `REQUEST_HEADERS:Referer`, `REQUEST_COOKIES:session`); a bare name means the whole
 * collection.
 */
export const EXCLUSION_COLLECTIONS = [
  'ARGS',
  'ARGS_GET',
  'ARGS_POST',
  'ARGS_NAMES',
  'ARGS_GET_NAMES',
  'ARGS_POST_NAMES',
  'REQUEST_COOKIES',
  'REQUEST_COOKIES_NAMES',
  'REQUEST_HEADERS',
  'REQUEST_HEADERS_NAMES',
  'FILES',
  'FILES_NAMES',
  'XML',
  'REQUEST_BODY',
  'REQUEST_URI',
  'REQUEST_URI_RAW',
  'REQUEST_FILENAME',
  'REQUEST_BASENAME',
  'QUERY_STRING',
] as const;
const COLLECTION_SET: ReadonlySet<string> = new Set(EXCLUSION_COLLECTIONS);

/** Why a target is not one an exclusion can take, or null. */
export function exclusionTargetIssue(target: string): string | null {
  if (target === '') return null;
  const colon = target.indexOf(':');
  const collection = (colon < 0 ? target : target.slice(0, colon)).toUpperCase();
  if (!COLLECTION_SET.has(collection))
    return `must be a request collection (${EXCLUSION_COLLECTIONS.slice(0, 4).join(', ')}, ...), optionally with :name`;
  if (colon >= 0 && colon === target.length - 1) return 'has a colon but no name after it';
  return null;
}

/**
 * A per-site exclusion of a Core Rule Set rule: the whole rule, or only one target of it, on every
 * path or one (`/login`; `/api/*` for a prefix). An operator's answer to a false positive, with the
 * reason kept.
 */
export const wafExclusionInputSchema = z
  .object({
    ruleId: z.number().int('must be a whole number').min(1, 'must be a rule id').max(99_999_999, 'must be a rule id'),
    target: z
      .string()
      .trim()
      .max(WAF_EXCLUSION_LIMITS.target, `must be at most ${WAF_EXCLUSION_LIMITS.target} characters`)
      .superRefine(visibleText())
      .superRefine((value, ctx) => {
        const issue = exclusionTargetIssue(value);
        if (issue) ctx.addIssue({ code: 'custom', message: issue });
      })
      .default(''),
    path: z
      .string()
      .trim()
      .max(WAF_EXCLUSION_LIMITS.path, `must be at most ${WAF_EXCLUSION_LIMITS.path} characters`)
      .superRefine(visibleText())
      .refine((p) => p === '' || p.startsWith('/'), 'must start with / (or be empty for every path)')
      .refine((p) => !p.slice(0, -1).includes('*'), 'may hold * only at its end (a prefix)')
      .default(''),
    reason: z
      .string()
      .trim()
      .min(1, 'is required: say why the rule is wrong here')
      .max(WAF_EXCLUSION_LIMITS.reason, `must be at most ${WAF_EXCLUSION_LIMITS.reason} characters`)
      .superRefine(visibleText()),
  })
  .strict();
export type WafExclusionInput = z.infer<typeof wafExclusionInputSchema>;

/** A media type as Content-Type names it before any parameter: `application/json`. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** A site's allowed request content types (CRS rule 920420's policy); null: Rampart's default list. */
export const contentTypesInputSchema = z
  .object({
    types: z
      .array(
        z
          .string()
          .trim()
          .toLowerCase()
          .regex(MEDIA_TYPE, 'must be a media type such as application/json (no parameters)'),
      )
      .min(1, 'needs at least one type (send null for the default list)')
      .max(WAF_EXCLUSION_LIMITS.contentTypes, `at most ${WAF_EXCLUSION_LIMITS.contentTypes}`)
      .nullable(),
  })
  .strict();
export type ContentTypesInput = z.infer<typeof contentTypesInputSchema>;
