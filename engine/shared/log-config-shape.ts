import { z } from 'zod';
import { visibleText } from './text.ts';

/**
 * The shape of a log configuration (spec 2.2) as the console sends it: the one schema the engine's
 * edge and the console's form both check with. What the shape cannot say (at least one required
 * field, regexes that run in linear time, group numbers, time formats, key fields naming configured
 * fields, unique names) the engine checks when it compiles the parser (engine/parse).
 */
export const LOG_CONFIG_LIMITS = {
  name: 64,
  fields: 100,
  fieldName: 64,
  regex: 1000,
  source: 256,
  timeField: 1000,
  timeFormat: 64,
  timezone: 64,
  sample: 64 * 1024,
  brokers: 1000,
  topic: 249,
  account: 256,
  password: 256,
  /** A CA bundle of a few certificates. */
  ca: 64 * 1024,
} as const;

export const LOG_TEMPLATE_TYPES = ['plain_text', 'json'] as const;
export const LOG_FIELD_TYPES = ['string', 'integer', 'float'] as const;
export const LOG_KEY_TARGETS = ['ip', 'device', 'user', 'custom1', 'custom2'] as const;
export type LogKeyTarget = (typeof LOG_KEY_TARGETS)[number];
export const LOG_CONFIG_METHODS = ['tcp', 'broker'] as const;
export const LOG_CONFIG_KINDS = ['access', 'messaging', 'custom'] as const;
export const KAFKA_MECHANISMS = ['none', 'plain', 'scram-sha-256', 'scram-sha-512'] as const;
export const PREDEFINED_LOG_TIME_FORMAT = 'YYYY-MM-DD hh:mm:ss';

const max = (n: number) => `must be at most ${n} characters`;
const line = (n: number) => z.string().max(n, max(n)).superRefine(visibleText(false));

const fieldName = line(LOG_CONFIG_LIMITS.fieldName);
const fieldType = z.enum(LOG_FIELD_TYPES);

export const logFieldSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('regex'),
      name: fieldName,
      type: fieldType,
      regex: z.string().max(LOG_CONFIG_LIMITS.regex, max(LOG_CONFIG_LIMITS.regex)),
      group: z.number().int('must be a whole number').min(0, 'must be 0 or more').max(99, 'must be at most 99'),
      required: z.boolean(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('json'),
      name: fieldName,
      type: fieldType,
      source: line(LOG_CONFIG_LIMITS.source),
      required: z.boolean(),
    })
    .strict(),
]);
export type LogFieldInput = z.infer<typeof logFieldSchema>;

export const logTimeSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('current') }).strict(),
  z
    .object({
      mode: z.literal('extract'),
      format: z.union([
        z.literal(PREDEFINED_LOG_TIME_FORMAT),
        z.object({ custom: line(LOG_CONFIG_LIMITS.timeFormat) }).strict(),
      ]),
      field: z.string().max(LOG_CONFIG_LIMITS.timeField, max(LOG_CONFIG_LIMITS.timeField)),
    })
    .strict(),
]);
export type LogTimeInput = z.infer<typeof logTimeSchema>;

const keyField = fieldName.optional();
export const logKeyFieldsSchema = z
  .object({ ip: keyField, device: keyField, user: keyField, custom1: keyField, custom2: keyField })
  .strict();

/** A BROKER configuration's Kafka connection. On update an absent password keeps the stored one. */
export const brokerInputSchema = z
  .object({
    address: z
      .string()
      .min(1, 'is required')
      .max(LOG_CONFIG_LIMITS.brokers, max(LOG_CONFIG_LIMITS.brokers))
      .regex(
        /^\s*[A-Za-z0-9.:[\]-]+:\d{1,5}\s*(,\s*[A-Za-z0-9.:[\]-]+:\d{1,5}\s*)*$/,
        'must be host:port, or several separated by commas',
      )
      .describe('broker nodes, host:port separated by commas'),
    topic: z
      .string()
      .min(1, 'is required')
      .max(LOG_CONFIG_LIMITS.topic, max(LOG_CONFIG_LIMITS.topic))
      .regex(/^[A-Za-z0-9._-]+$/, 'may hold only letters, digits, dots, underscores and hyphens'),
    account: line(LOG_CONFIG_LIMITS.account).default(''),
    password: z
      .string()
      .max(LOG_CONFIG_LIMITS.password, max(LOG_CONFIG_LIMITS.password))
      .optional()
      .describe('absent on update: keep the stored password'),
    mechanism: z.enum(KAFKA_MECHANISMS).default('plain').describe('SASL mechanism when an account is given'),
    tls: z.boolean().default(false),
    ca: z
      .string()
      .max(LOG_CONFIG_LIMITS.ca, max(LOG_CONFIG_LIMITS.ca))
      .default('')
      .describe(
        "with tls: the PEM certificates of the CA that signed the brokers' certificates (empty: the system's CAs)",
      ),
  })
  .strict();
export type BrokerInput = z.infer<typeof brokerInputSchema>;

/** A custom log configuration as the console sends it (create and edit). */
export const logConfigInputSchema = z
  .object({
    name: line(LOG_CONFIG_LIMITS.name).refine((v) => v.trim().length > 0, 'is required'),
    method: z.enum(LOG_CONFIG_METHODS),
    broker: brokerInputSchema.nullable().default(null).describe('BROKER only'),
    templateType: z.enum(LOG_TEMPLATE_TYPES),
    time: logTimeSchema,
    timezone: line(LOG_CONFIG_LIMITS.timezone).optional().describe("an IANA zone; default the appliance's"),
    fields: z.array(logFieldSchema).max(LOG_CONFIG_LIMITS.fields, `at most ${LOG_CONFIG_LIMITS.fields} fields`),
    keyFields: logKeyFieldsSchema.default({}),
    intelligence: z.boolean().default(false),
    sampleData: z
      .string()
      .max(LOG_CONFIG_LIMITS.sample, max(LOG_CONFIG_LIMITS.sample))
      .default('')
      .describe('one pasted log for the live parse preview'),
  })
  .strict()
  .superRefine((value, ctx) => {
    if (value.method === 'broker' && value.broker === null)
      ctx.addIssue({ code: 'custom', path: ['broker'], message: 'is required for a BROKER configuration' });
    if (value.method === 'tcp' && value.broker !== null)
      ctx.addIssue({ code: 'custom', path: ['broker'], message: 'is only for a BROKER configuration' });
  });
export type LogConfigInput = z.infer<typeof logConfigInputSchema>;
