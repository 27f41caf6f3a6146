import { z } from 'zod';
import {
  LOG_KEY_TARGETS,
  RULE_ACTIONS,
  RULE_LIMITS,
  eventInputSchema,
  ruleInputSchema,
  ruleNotifySchema,
  visibleText,
} from '#engine/shared';
import { defineContract } from './contract.ts';
import { idParams, LIMITS } from './common.schema.ts';

/**
 * Events (spec 2.4), event-based rules (2.5: risk-control in A, advanced in B) and bans. Spec 5.2:
 * administrators and users manage them (configuration and rule management); the menus need the
 * event-rule module.
 */
const MANAGERS = ['administrator', 'user'] as const;
const MODULE = 'advanced' as const;

export { eventInputSchema, ruleInputSchema };
export type { EventInput, RuleInput } from '#engine/shared';

const problemView = z.object({
  field: z.string().describe('the path of the part at fault: relation, conditions[1].value, steps[0].event'),
  code: z.string().describe('stable, translated by the console'),
  message: z.string().describe('in English'),
  params: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});
export type EventProblemView = z.infer<typeof problemView>;

const eventStats = z.object({
  keys: z.number().describe('trigger-object values with state now'),
  evictions: z.number().describe('values dropped at the cap (least recently seen first)'),
  firings: z.number().describe('firings since the engine started'),
});

const eventMeta = z.object({
  id: z.string(),
  preset: z.boolean(),
  enabled: z.boolean(),
  createdAt: z.number(),
  updatedAt: z.number(),
  usedBy: z.object({
    rules: z.array(z.object({ id: z.string(), name: z.string() })),
    events: z.array(z.object({ id: z.string(), name: z.string() })),
  }),
  stats: eventStats.nullable().describe('null while the event is disabled'),
});

export const eventView = z.intersection(eventInputSchema, eventMeta);
export type EventView = z.infer<typeof eventView>;

export const listEvents = defineContract({
  method: 'GET',
  path: '/events',
  operationId: 'listEvents',
  summary: 'Events, presets included, with what uses them and their live counters',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  response: z.object({ items: z.array(eventView) }),
});

export const getEvent = defineContract({
  method: 'GET',
  path: '/events/:id',
  operationId: 'getEvent',
  summary: 'One event',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  response: eventView,
});

export const createEvent = defineContract({
  method: 'POST',
  path: '/events',
  operationId: 'createEvent',
  summary: 'Create an event (created disabled, spec 3)',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  body: eventInputSchema,
  status: 201,
  response: eventView,
});

export const updateEvent = defineContract({
  method: 'PUT',
  path: '/events/:id',
  operationId: 'updateEvent',
  summary: 'Replace an event; an enabled one must still compile, and so must the enabled events that use it',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: eventInputSchema,
  response: eventView,
});

export const deleteEvent = defineContract({
  method: 'DELETE',
  path: '/events/:id',
  operationId: 'deleteEvent',
  summary: 'Delete an event no rule and no other event uses (cannot be undone)',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  status: 204,
});

export const copyEvent = defineContract({
  method: 'POST',
  path: '/events/:id/copy',
  operationId: 'copyEvent',
  summary: 'Copy an event (the copy is disabled and named "<name> copy")',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  status: 201,
  response: eventView,
});

export const setEventEnabled = defineContract({
  method: 'POST',
  path: '/events/:id/enabled',
  operationId: 'setEventEnabled',
  summary: 'Enable or disable an event (enabling needs a log source: EVENT_NO_SOURCE otherwise)',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: z.object({ enabled: z.boolean() }).strict(),
  response: eventView,
});

export const checkEvent = defineContract({
  method: 'POST',
  path: '/events/check',
  operationId: 'checkEvent',
  summary: 'Check an event as it is typed (relation, labels, fields, regexes, referenced events); nothing is saved',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  body: z
    .object({
      event: z.unknown().describe('the event as the form holds it (an EventInput when complete)'),
      id: z.string().max(LIMITS.id).optional().describe('the event being edited, if any'),
    })
    .strict(),
  response: z.object({ problems: z.array(problemView) }),
});

export const eventCandidateFields = defineContract({
  method: 'POST',
  path: '/events/candidate-fields',
  operationId: 'eventCandidateFields',
  summary: 'The fields common to all the chosen log sources (spec 2.4), with their key-field mappings',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  body: z.object({ sources: z.array(z.string().max(LIMITS.id)).max(20) }).strict(),
  response: z.object({
    fields: z.array(z.string()),
    keyTargets: z
      .array(z.enum(LOG_KEY_TARGETS))
      .describe('trigger objects every source maps to a field (access logs: ip and device)'),
  }),
});

export const explainEvent = defineContract({
  method: 'POST',
  path: '/events/:id/explain',
  operationId: 'explainEvent',
  summary: "Which of an event's conditions a stored record meets",
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: z.object({ record: z.record(z.string(), z.unknown()) }).strict(),
  response: z.object({
    outcomes: z.array(z.object({ label: z.string(), field: z.string(), value: z.unknown(), matched: z.boolean() })),
    matched: z.boolean().describe('the relation over the outcomes (simple events)'),
  }),
});

export const dryRunEvent = defineContract({
  method: 'POST',
  path: '/events/:id/dry-run',
  operationId: 'dryRunEvent',
  summary: 'Run an event over a stored time range of its sources and report what would have fired (nobody is banned)',
  tag: 'events',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: z
    .object({
      from: z.number().int().describe('UTC epoch ms'),
      to: z.number().int().describe('UTC epoch ms'),
    })
    .strict()
    .refine((b) => b.to > b.from, { path: ['to'], message: 'must be after from' }),
  response: z.object({
    records: z.number().describe('records read'),
    firings: z.number(),
    keys: z
      .array(z.object({ key: z.string().nullable(), firings: z.number(), first: z.number() }))
      .describe('per trigger-object value, most firings first (at most 100)'),
    truncated: z.boolean().describe('true when the record budget ran out before the end of the range'),
    tookMs: z.number(),
  }),
});

// --- rules

/** A rule's notifications as answered: the webhook's secret itself never is, only whether it is set. */
export const ruleNotifyView = z.object({
  emails: z.array(z.string()),
  webhook: z
    .object({
      url: z.string(),
      secretSet: z.boolean().describe('the secret itself is never answered; an empty secret on update keeps it'),
    })
    .nullable(),
  syslog: ruleNotifySchema.shape.syslog,
  throttleSeconds: z.number(),
});

export const ruleView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  siteId: z.string(),
  events: z.array(z.string()),
  action: z.enum(RULE_ACTIONS),
  target: z.enum(LOG_KEY_TARGETS),
  durationSeconds: z.number(),
  priority: z.number(),
  notify: ruleNotifyView,
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type RuleView = z.infer<typeof ruleView>;

export const listRules = defineContract({
  method: 'GET',
  path: '/rules',
  operationId: 'listRules',
  summary: "Event-based rules, by priority; with siteId, one protected site's",
  tag: 'rules',
  access: MANAGERS,
  module: MODULE,
  query: z.object({ siteId: z.string().max(LIMITS.id).optional() }).strict(),
  response: z.object({
    items: z.array(ruleView),
    minimumPriority: z.number().describe('the priority of a rule with no action: -1 in A, 0 in B'),
  }),
});

export const getRule = defineContract({
  method: 'GET',
  path: '/rules/:id',
  operationId: 'getRule',
  summary: 'One rule',
  tag: 'rules',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  response: ruleView,
});

export const createRule = defineContract({
  method: 'POST',
  path: '/rules',
  operationId: 'createRule',
  summary: 'Create a rule; a priority already taken moves it and every greater one up by one',
  tag: 'rules',
  access: MANAGERS,
  module: MODULE,
  body: ruleInputSchema,
  status: 201,
  response: ruleView,
});

export const updateRule = defineContract({
  method: 'PUT',
  path: '/rules/:id',
  operationId: 'updateRule',
  summary: 'Replace a rule (the same priority shifting as on create)',
  tag: 'rules',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: ruleInputSchema,
  response: ruleView,
});

export const deleteRule = defineContract({
  method: 'DELETE',
  path: '/rules/:id',
  operationId: 'deleteRule',
  summary: 'Delete a rule (its bans stay until they expire or are lifted)',
  tag: 'rules',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  status: 204,
});

export const copyRule = defineContract({
  method: 'POST',
  path: '/rules/:id/copy',
  operationId: 'copyRule',
  summary: 'Copy a rule',
  tag: 'rules',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  status: 201,
  response: ruleView,
});

// --- bans

export const banView = z.object({
  id: z.string(),
  siteId: z.string(),
  object: z.enum(LOG_KEY_TARGETS),
  value: z.string(),
  createdAt: z.number(),
  until: z.number(),
  remainingSeconds: z.number(),
  origin: z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('rule'),
      ruleId: z.string(),
      ruleName: z.string(),
      eventId: z.string(),
      eventName: z.string(),
      log: z.string().describe('the log of the record that fired the event'),
      logId: z.string().describe('its log_id'),
    }),
    z.object({
      kind: z.literal('manual'),
      accountId: z.string().nullable(),
      accountName: z.string().optional().describe('who added it (their e-mail address)'),
      reason: z.string(),
    }),
  ]),
});
export type BanView = z.infer<typeof banView>;

export const listBans = defineContract({
  method: 'GET',
  path: '/bans',
  operationId: 'listBans',
  summary: 'Active bans, newest first',
  tag: 'bans',
  access: MANAGERS,
  module: MODULE,
  query: z
    .object({
      siteId: z.string().max(LIMITS.id).optional(),
      object: z.enum(LOG_KEY_TARGETS).optional(),
      value: z.string().max(256).optional().describe('part of the banned value'),
      limit: z.coerce.number().int().min(1).max(200).default(50),
      cursor: z.string().max(128).optional(),
    })
    .strict(),
  response: z.object({
    items: z.array(banView),
    nextCursor: z.string().nullable(),
    total: z.number(),
    threatStore: z.number().describe('active threat-store entries (IPs and devices, 300 s each)'),
  }),
});

export const createBan = defineContract({
  method: 'POST',
  path: '/bans',
  operationId: 'createBan',
  summary: 'Ban an IP, device, user or custom key on a site by hand',
  tag: 'bans',
  access: MANAGERS,
  module: MODULE,
  body: z
    .object({
      siteId: z.string().min(1, 'is required').max(LIMITS.id),
      object: z.enum(LOG_KEY_TARGETS),
      value: z
        .string()
        .trim()
        .min(1, 'is required')
        .max(256, 'must be at most 256 characters')
        .superRefine(visibleText(false)),
      durationSeconds: z
        .number()
        .int('must be a whole number')
        .min(1, 'must be at least 1 second')
        .max(RULE_LIMITS.durationSeconds, 'must be at most 365 days'),
      reason: z.string().max(256, 'must be at most 256 characters').superRefine(visibleText(false)).default(''),
    })
    .strict(),
  status: 201,
  response: banView,
});

export const liftBan = defineContract({
  method: 'DELETE',
  path: '/bans/:id',
  operationId: 'liftBan',
  summary: 'Lift a ban (and the threat-store entry it made)',
  tag: 'bans',
  access: MANAGERS,
  module: MODULE,
  params: z.object({ id: z.string().min(1).max(128) }).strict(),
  status: 204,
});
