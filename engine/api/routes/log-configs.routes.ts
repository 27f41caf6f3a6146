import type { LogConfigRecord } from '#engine/config-store';
import { appliancesZone, customLogName } from '#engine/log-configs';
import { preview, guessFields, parseFailureText } from '#engine/parse';
import { RampartError } from '#engine/shared';
import { bindRoute, type AnyRoute } from '../route.ts';
import type { ApiDeps } from '../deps.ts';
import {
  copyLogConfig,
  createLogConfig,
  deleteLogConfig,
  downloadLogConfigCertificate,
  getLogConfig,
  getLogConfigStatus,
  guessLogConfigFields,
  listLogConfigs,
  previewLogConfig,
  regenerateLogConfigCertificate,
  updateLogConfig,
  type LogConfigView,
} from '../schemas.ts';

/** A configuration as the console sees it: no password, no private keys. */
export function toLogConfigView(c: LogConfigRecord): LogConfigView {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    siteId: c.siteId,
    method: c.method,
    broker: c.broker && {
      address: c.broker.address,
      topic: c.broker.topic,
      account: c.broker.account,
      passwordSet: c.broker.password !== '',
      mechanism: c.broker.mechanism,
      tls: c.broker.tls,
      ca: c.broker.ca ?? '',
    },
    templateType: c.templateType,
    time: c.time,
    timezone: c.timezone,
    fields: c.fields,
    keyFields: c.keyFields,
    intelligence: c.intelligence,
    sampleData: c.sampleData,
    certificate: c.certificate && {
      fingerprint: c.certificate.fingerprint,
      serial: c.certificate.serial,
      notAfter: c.certificate.notAfter,
      issuedAt: c.certificate.issuedAt,
    },
    log: c.kind === 'access' ? null : customLogName(c.id),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function logConfigRoutes(deps: ApiDeps): AnyRoute[] {
  const { logConfigs, intakes } = deps;
  return [
    bindRoute(listLogConfigs, () => ({ items: logConfigs.list().map(toLogConfigView) })),
    bindRoute(getLogConfig, ({ params }) => toLogConfigView(logConfigs.get(params.id))),
    bindRoute(createLogConfig, async ({ body }) => {
      const created = await logConfigs.create(body);
      await intakes.changed();
      return toLogConfigView(created);
    }),
    bindRoute(updateLogConfig, async ({ params, body }) => {
      const updated = await logConfigs.update(params.id, body);
      await intakes.changed();
      return toLogConfigView(updated);
    }),
    bindRoute(deleteLogConfig, async ({ params }) => {
      await logConfigs.remove(params.id);
      await intakes.changed();
      intakes.ingest.forget(params.id);
    }),
    bindRoute(copyLogConfig, async ({ params, body }) => {
      const copy = await logConfigs.copy(params.id, body.name);
      await intakes.changed();
      return toLogConfigView(copy);
    }),
    bindRoute(regenerateLogConfigCertificate, async ({ params }) => {
      const updated = await logConfigs.regenerateCertificate(params.id);
      await intakes.changed();
      return toLogConfigView(updated);
    }),
    bindRoute(downloadLogConfigCertificate, ({ params }) => {
      const config = logConfigs.get(params.id);
      const content = logConfigs.bundle(params.id, intakes.tcpAddress());
      const safe = config.name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || config.id;
      return { fileName: `rampart-${safe}-certificate.zip`, contentType: 'application/zip', content };
    }),
    bindRoute(getLogConfigStatus, ({ params }) => {
      const config = logConfigs.get(params.id);
      const counts = intakes.counts(config);
      return {
        id: config.id,
        ...counts,
        tcp: config.method === 'tcp' ? intakes.tcpStatus(config.id) : null,
        kafka: config.method === 'broker' ? intakes.kafkaStatus(config.id) : null,
        failed: intakes.failed(config),
      };
    }),
    bindRoute(previewLogConfig, ({ body }) => {
      const outcome = preview(
        {
          id: 'preview',
          name: body.config.name,
          templateType: body.config.templateType,
          time: body.config.time,
          timezone: body.config.timezone ?? appliancesZone(),
          fields: body.config.fields,
          keyFields: body.config.keyFields,
          intelligence: body.config.intelligence,
        },
        body.sample,
        deps.clock.now(),
        body.locale,
      );
      if (outcome.kind === 'config_invalid') {
        return {
          outcome: 'config_invalid' as const,
          problems: outcome.problems.map((p) => ({ field: p.field, message: p.message, code: p.code })),
        };
      }
      if (outcome.kind === 'parsed') return { outcome: 'parsed' as const, record: outcome.record };
      return {
        outcome: 'failed' as const,
        code: outcome.failure.code,
        field: outcome.failure.field ?? null,
        text: outcome.text,
      };
    }),
    bindRoute(guessLogConfigFields, ({ body }) => {
      const guessed = guessFields(body.sample, body.templateType);
      if (!guessed.ok) {
        throw new RampartError('VALIDATION_FAILED', `sample: ${parseFailureText(guessed.failure, 'en')}`, {
          field: 'sample',
          params: { code: guessed.failure.code },
        });
      }
      return { fields: guessed.fields, truncated: guessed.truncated };
    }),
  ];
}
