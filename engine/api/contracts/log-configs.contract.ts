import { z } from 'zod';
import {
  KAFKA_MECHANISMS,
  LOG_CONFIG_KINDS,
  LOG_CONFIG_LIMITS,
  LOG_CONFIG_METHODS,
  LOG_TEMPLATE_TYPES,
  logConfigInputSchema,
  logFieldSchema,
  logKeyFieldsSchema,
  logTimeSchema,
  visibleText,
} from '#engine/shared';
import { defineContract } from './contract.ts';
import { idParams } from './common.schema.ts';

/** Spec 5.2: administrators and users manage log configurations; the menu needs the event-rule module (2.2). */
const MANAGERS = ['administrator', 'user'] as const;
const MODULE = 'advanced' as const;

export { logConfigInputSchema };
export type { LogConfigInput } from '#engine/shared';

export const logConfigView = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(LOG_CONFIG_KINDS),
  siteId: z.string().nullable(),
  method: z.enum(LOG_CONFIG_METHODS).nullable(),
  broker: z
    .object({
      address: z.string(),
      topic: z.string(),
      account: z.string(),
      passwordSet: z.boolean().describe('the password itself is never answered'),
      mechanism: z.enum(KAFKA_MECHANISMS),
      tls: z.boolean(),
      ca: z.string().describe("the CA's PEM certificates (public), empty for the system's CAs"),
    })
    .nullable(),
  templateType: z.enum(LOG_TEMPLATE_TYPES),
  time: logTimeSchema,
  timezone: z.string(),
  fields: z.array(logFieldSchema),
  keyFields: logKeyFieldsSchema,
  intelligence: z.boolean(),
  sampleData: z.string(),
  certificate: z
    .object({ fingerprint: z.string(), serial: z.string(), notAfter: z.number(), issuedAt: z.number() })
    .nullable()
    .describe('TCP: the bundle senders install (download it from /log-configs/{id}/certificate)'),
  log: z
    .string()
    .nullable()
    .describe('the log its records are searched in (null for an access configuration: its site’s access log)'),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type LogConfigView = z.infer<typeof logConfigView>;

export const failedRecordView = z.object({
  at: z.number(),
  code: z.string(),
  reason: z.string().describe('in English; the console words it from code and field'),
  field: z.string().nullable(),
  params: z
    .record(z.string(), z.union([z.string(), z.number()]))
    .describe('what the reason is worded with: maximum and length, text and format, detail, kind, source, field'),
  logId: z.string().nullable().describe('the record id it would have had (Kafka: topic-partition-offset)'),
  line: z.string().describe('the line (empty for a Kafka message: its logId names it)'),
});

export const logConfigStatusView = z.object({
  id: z.string(),
  received: z.number(),
  parsed: z.number(),
  discarded: z.number().describe('parse failures (a required field missing, a time that does not fit, ...)'),
  orphaned: z.number().describe('lines that arrived while the configuration was being deleted'),
  lastReceivedAt: z.number().nullable(),
  tcp: z
    .object({
      listening: z.boolean(),
      address: z.string().describe('where senders connect, host:port, as the bundle says'),
      connectionsOpen: z.number(),
      connectionsTotal: z.number(),
      bytes: z.number(),
      oversized: z.number(),
      incomplete: z.number(),
      invalidUtf8: z.number(),
    })
    .nullable(),
  kafka: z
    .object({
      state: z.string().describe('connecting, connected, retrying or stopped'),
      lastError: z.string().nullable(),
      lag: z.number().nullable().describe('messages on the topic not yet stored'),
      bytes: z.number(),
    })
    .nullable(),
  failed: z.array(failedRecordView).describe('the newest failed records, newest first (at most 100)'),
});
export type LogConfigStatusView = z.infer<typeof logConfigStatusView>;

export const listLogConfigs = defineContract({
  method: 'GET',
  path: '/log-configs',
  operationId: 'listLogConfigs',
  summary: 'Log configurations: access ones (one per site) and custom TCP and BROKER ones',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  response: z.object({ items: z.array(logConfigView) }),
});

export const getLogConfig = defineContract({
  method: 'GET',
  path: '/log-configs/:id',
  operationId: 'getLogConfig',
  summary: 'One log configuration',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  response: logConfigView,
});

export const createLogConfig = defineContract({
  method: 'POST',
  path: '/log-configs',
  operationId: 'createLogConfig',
  summary: 'Create a custom (TCP or BROKER) log configuration; a TCP one gets its certificate bundle',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  body: logConfigInputSchema,
  status: 201,
  response: logConfigView,
});

export const updateLogConfig = defineContract({
  method: 'PUT',
  path: '/log-configs/:id',
  operationId: 'updateLogConfig',
  summary: 'Replace a custom log configuration (its field areas and method cannot change)',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: logConfigInputSchema,
  response: logConfigView,
});

export const deleteLogConfig = defineContract({
  method: 'DELETE',
  path: '/log-configs/:id',
  operationId: 'deleteLogConfig',
  summary: 'Delete a custom log configuration (its stored records stay until retention removes them)',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  status: 204,
});

export const copyLogConfig = defineContract({
  method: 'POST',
  path: '/log-configs/:id/copy',
  operationId: 'copyLogConfig',
  summary: 'Copy a log configuration (an access one becomes a custom TCP one)',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  body: z
    .object({
      name: z
        .string()
        .max(LOG_CONFIG_LIMITS.name, `must be at most ${LOG_CONFIG_LIMITS.name} characters`)
        .superRefine(visibleText(false))
        .optional()
        .describe('default: "<name> copy"'),
    })
    .strict(),
  bodyOptional: true,
  status: 201,
  response: logConfigView,
});

export const regenerateLogConfigCertificate = defineContract({
  method: 'POST',
  path: '/log-configs/:id/certificate',
  operationId: 'regenerateLogConfigCertificate',
  summary: 'A new certificate bundle for a TCP configuration: senders with the old one are refused',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  response: logConfigView,
});

export const downloadLogConfigCertificate = defineContract({
  method: 'GET',
  path: '/log-configs/:id/certificate',
  operationId: 'downloadLogConfigCertificate',
  summary:
    'The certificate bundle of a TCP configuration: ca_cert.pem, csr_cert.pem, private_key.pem, rsyslog configurations, README',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  produces: 'download',
  downloadType: 'application/zip',
});

export const getLogConfigStatus = defineContract({
  method: 'GET',
  path: '/log-configs/:id/status',
  operationId: 'getLogConfigStatus',
  summary: 'What a configuration received: counters, connections or Kafka state and lag, the newest failed records',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  params: idParams,
  response: logConfigStatusView,
});

export const previewLogConfig = defineContract({
  method: 'POST',
  path: '/log-configs/preview',
  operationId: 'previewLogConfig',
  summary: 'Parse a sample line with a configuration as it is being edited (nothing is saved)',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  body: z
    .object({
      config: logConfigInputSchema,
      sample: z.string().max(LOG_CONFIG_LIMITS.sample, `must be at most ${LOG_CONFIG_LIMITS.sample} characters`),
      locale: z.enum(['en', 'zh-CN']).default('en'),
    })
    .strict(),
  response: z.discriminatedUnion('outcome', [
    z.object({
      outcome: z.literal('config_invalid'),
      problems: z.array(z.object({ field: z.string(), message: z.string(), code: z.string() })),
    }),
    z.object({ outcome: z.literal('parsed'), record: z.record(z.string(), z.unknown()) }),
    z.object({
      outcome: z.literal('failed'),
      code: z.string(),
      field: z.string().nullable(),
      text: z.string().describe('the failure in the asked language: 必要字段不允许为空: <field> for a required field'),
    }),
  ]),
});

export const guessLogConfigFields = defineContract({
  method: 'POST',
  path: '/log-configs/guess-fields',
  operationId: 'guessLogConfigFields',
  summary: 'Quick add: one json field area per member of a sample, with guessed types',
  tag: 'log-configs',
  access: MANAGERS,
  module: MODULE,
  body: z
    .object({
      sample: z.string().min(1, 'is required').max(LOG_CONFIG_LIMITS.sample),
      templateType: z.enum(LOG_TEMPLATE_TYPES),
    })
    .strict(),
  response: z.object({ fields: z.array(logFieldSchema), truncated: z.boolean() }),
});
