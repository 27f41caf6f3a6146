import { z } from 'zod';
import { LOG_KEY_TARGETS } from './log-config-shape.ts';
import { visibleText } from './text.ts';

/**
 * The shapes of events and event-based rules (spec 2.4, 2.5) as the console sends them: the one
 * schema the engine's edge and the console's forms both check with. What a shape cannot say (a
 * relation that parses and names only defined labels, fields the sources have, regexes that run in
 * linear time, events that exist, unique names) the engine checks when it compiles the event
 * (engine/events) or saves it.
 */
export const EVENT_LIMITS = {
  name: 64,
  description: 256,
  sources: 20,
  conditions: 26,
  relation: 512,
  field: 128,
  value: 1000,
  members: 26,
  steps: 10,
  /** A CEP step's repeat range. */
  repeat: 1000,
  /** The longest window: 30 days. */
  windowSeconds: 30 * 86_400,
  /** Count / distinct thresholds. */
  threshold: 1_000_000_000,
} as const;

export const RULE_LIMITS = {
  name: 64,
  description: 256,
  events: 50,
  /** The longest block: 365 days. */
  durationSeconds: 365 * 86_400,
  priority: 1_000_000,
} as const;

export const EVENT_KINDS = ['simple', 'count', 'distinct', 'average', 'cep', 'combined'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
/** The kinds that keep state per trigger-object value over a window. */
export const WINDOWED_EVENT_KINDS = ['count', 'distinct', 'average', 'cep'] as const;
export const CONDITION_FILTERS = ['string', 'number'] as const;
export const STRING_MATCH_MODES = ['regex', 'exact'] as const;
export const COMPARATORS = ['>=', '>', '=', '<', '<='] as const;
export type Comparator = (typeof COMPARATORS)[number];
export const WINDOW_UNITS = ['second', 'minute', 'hour', 'day'] as const;
export type WindowUnit = (typeof WINDOW_UNITS)[number];
export const UNIT_SECONDS: Readonly<Record<WindowUnit, number>> = { second: 1, minute: 60, hour: 3600, day: 86_400 };
export const CEP_CONTINUITY = ['strict', 'loose'] as const;
export const RULE_ACTIONS = ['block', 'none'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];
/** Spec 2.5: the automatic priority of a rule with no action, per edition (also the minimum). */
export const MIN_RULE_PRIORITY = { A: -1, B: 0 } as const;

const max = (n: number) => `must be at most ${n} characters`;
const line = (n: number) => z.string().max(n, max(n)).superRefine(visibleText(false));
const name = (n: number) => line(n).refine((v) => v.trim().length > 0, 'is required');
const fieldName = line(EVENT_LIMITS.field).refine((v) => v.trim().length > 0, 'is required');
const label = z.string().regex(/^[a-z]$/, 'must be one lower-case letter (a to z)');
const id = z.string().min(1, 'is required').max(64, max(64));

/** One condition area of a simple event: target field, filter type, match mode, value. */
export const eventConditionSchema = z
  .object({
    label,
    field: fieldName,
    filter: z.enum(CONDITION_FILTERS),
    /** string: regex / exact; number: a comparator. */
    mode: z.enum([...STRING_MATCH_MODES, ...COMPARATORS]),
    value: z.string().max(EVENT_LIMITS.value, max(EVENT_LIMITS.value)),
  })
  .strict()
  .superRefine((c, ctx) => {
    const stringMode = (STRING_MATCH_MODES as readonly string[]).includes(c.mode);
    if (c.filter === 'string' && !stringMode)
      ctx.addIssue({ code: 'custom', path: ['mode'], message: 'must be regex or exact for a string match' });
    if (c.filter === 'number') {
      if (stringMode)
        ctx.addIssue({
          code: 'custom',
          path: ['mode'],
          message: 'must be one of >=, >, =, <, <= for a numeric judgment',
        });
      if (c.value.trim() === '' || !Number.isFinite(Number(c.value)))
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be a number' });
    }
  });
export type EventConditionInput = z.infer<typeof eventConditionSchema>;

export const eventWindowSchema = z
  .object({
    value: z.number().int('must be a whole number').min(1, 'must be at least 1'),
    unit: z.enum(WINDOW_UNITS),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (w.value * UNIT_SECONDS[w.unit] > EVENT_LIMITS.windowSeconds)
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'must be at most 30 days' });
  });
export type EventWindowInput = z.infer<typeof eventWindowSchema>;

export const windowSeconds = (w: EventWindowInput): number => w.value * UNIT_SECONDS[w.unit];

const common = {
  name: name(EVENT_LIMITS.name),
  description: line(EVENT_LIMITS.description).default(''),
  /** Log configuration ids (an access log configuration stands for its site's access log). */
  sources: z
    .array(id)
    .max(EVENT_LIMITS.sources, `at most ${EVENT_LIMITS.sources} log sources`)
    .default([])
    .describe('log configuration ids; an enabled event needs at least one'),
};
const keyTarget = z.enum(LOG_KEY_TARGETS);
const threshold = z
  .number()
  .finite('must be a number')
  .min(-EVENT_LIMITS.threshold, 'is too small')
  .max(EVENT_LIMITS.threshold, 'is too large');
const windowed = {
  /** A simple event whose matches are counted; null = all records of the sources. */
  triggerEvent: id.nullable().default(null).describe("a simple event's id, or null for all records"),
  object: keyTarget.describe('the trigger object: records are grouped by its value'),
  window: eventWindowSchema,
  comparator: z.enum(COMPARATORS),
  threshold,
};

export const eventInputSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('simple'),
      ...common,
      relation: line(EVENT_LIMITS.relation).describe('labels with & | ! and parentheses; one condition: its label'),
      conditions: z
        .array(eventConditionSchema)
        .min(1, 'needs at least one condition')
        .max(EVENT_LIMITS.conditions, `at most ${EVENT_LIMITS.conditions} conditions`),
    })
    .strict(),
  z.object({ kind: z.literal('count'), ...common, ...windowed }).strict(),
  z.object({ kind: z.literal('distinct'), ...common, ...windowed, field: fieldName }).strict(),
  z.object({ kind: z.literal('average'), ...common, ...windowed, field: fieldName }).strict(),
  z
    .object({
      kind: z.literal('cep'),
      ...common,
      object: keyTarget,
      window: eventWindowSchema,
      continuity: z.enum(CEP_CONTINUITY),
      steps: z
        .array(
          z
            .object({
              event: id.describe("a simple event's id"),
              min: z.number().int('must be a whole number').min(1, 'must be at least 1').max(EVENT_LIMITS.repeat),
              max: z.number().int('must be a whole number').min(1, 'must be at least 1').max(EVENT_LIMITS.repeat),
            })
            .strict()
            .refine((s) => s.max >= s.min, { path: ['max'], message: 'must be at least the minimum' }),
        )
        .min(1, 'needs at least one step')
        .max(EVENT_LIMITS.steps, `at most ${EVENT_LIMITS.steps} steps`),
    })
    .strict(),
  z
    .object({
      kind: z.literal('combined'),
      ...common,
      relation: line(EVENT_LIMITS.relation).describe('member labels with & | ! and parentheses'),
      members: z
        .array(z.object({ label, event: id.describe("a single event's id") }).strict())
        .min(1, 'needs at least one event')
        .max(EVENT_LIMITS.members, `at most ${EVENT_LIMITS.members} events`),
    })
    .strict(),
]);
export type EventInput = z.infer<typeof eventInputSchema>;

/**
 * Who a rule tells when it fires, besides acting: e-mail (the SMTP settings), a webhook (JSON, signed
 * with HMAC-SHA256 over the body with a shared secret, retried with back-off) and syslog (RFC 5424).
 * At most one notification per rule per throttle period; the ones held back are counted in the next.
 */
export const ruleNotifySchema = z
  .object({
    emails: z
      .array(
        z
          .string()
          .trim()
          .max(254, 'must be at most 254 characters')
          .pipe(z.email({ error: 'must be a valid e-mail address' })),
      )
      .max(20, 'at most 20 addresses')
      .default([]),
    webhook: z
      .object({
        url: z
          .string()
          .max(2048, 'must be at most 2048 characters')
          .refine((v) => /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'must be an http:// or https:// address'),
        secret: z.string().max(256, 'must be at most 256 characters').default(''),
      })
      .strict()
      .nullable()
      .default(null),
    syslog: z
      .object({
        host: z
          .string()
          .min(1, 'is required')
          .max(253, 'must be at most 253 characters')
          .regex(/^[A-Za-z0-9.:[\]-]+$/, 'must be a host name or an IP address'),
        port: z.number().int('must be a whole number').min(1, 'must be 1 to 65535').max(65_535, 'must be 1 to 65535'),
        protocol: z.enum(['udp', 'tcp']).default('udp'),
      })
      .strict()
      .nullable()
      .default(null),
    throttleSeconds: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be 0 or more')
      .max(86_400, 'must be at most a day')
      .default(300),
  })
  .strict();
export type RuleNotifyInput = z.infer<typeof ruleNotifySchema>;

/** An event-based rule (spec 2.5, risk-control / advanced rules) as the console sends it. */
export const ruleInputSchema = z
  .object({
    name: name(RULE_LIMITS.name),
    description: line(RULE_LIMITS.description).default(''),
    /** The site whose requests the action applies to. */
    siteId: id,
    events: z
      .array(id)
      .min(1, 'needs at least one event')
      .max(RULE_LIMITS.events, `at most ${RULE_LIMITS.events} events`)
      .describe('enabled events; any one firing fires the rule'),
    action: z.enum(RULE_ACTIONS),
    target: keyTarget.describe('the object blocked when the rule fires'),
    durationSeconds: z
      .number()
      .int('must be a whole number')
      .min(1, 'must be at least 1 second')
      .max(RULE_LIMITS.durationSeconds, 'must be at most 365 days'),
    priority: z
      .number()
      .int('must be a whole number')
      .max(RULE_LIMITS.priority, `must be at most ${RULE_LIMITS.priority}`)
      .optional()
      .describe('block: 1 by default (the highest); no action: filled with the minimum'),
    notify: ruleNotifySchema.default({ emails: [], webhook: null, syslog: null, throttleSeconds: 300 }),
  })
  .strict();
export type RuleInput = z.infer<typeof ruleInputSchema>;
