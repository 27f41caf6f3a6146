import { X509Certificate } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ConfigSlice, LogConfigRecord } from '#engine/config-store';
import { certificateBundle, issueBundle } from '#engine/intake';
import { compileParser, type LogParseConfig, type LogParser } from '#engine/parse';
import {
  RampartError,
  copyName as copyNameOf,
  cryptoRandom,
  newId,
  validationFailed,
  type Clock,
  type FieldProblem,
  type LogConfigInput,
  type Random,
} from '#engine/shared';

export interface LogConfigsDeps {
  store: ConfigSlice<'logConfigs'>;
  clock: Clock;
  random?: Random;
  /** The zone of extracted times when a configuration names none: the appliance's. */
  defaultTimezone?: string;
  /** Whether a BROKER configuration's brokers may be reached from here (RAMPART_KAFKA_BROKERS_ALLOWED). */
  brokersAllowed?: (brokers: readonly string[]) => boolean;
}

/** The log a configuration's parsed records go to (kind `custom`). */
export const customLogName = (configId: string): string => `custom:${configId}`;
/** The raw log: every line a TCP or BROKER configuration received, with whether it parsed (spec 1.2). */
export const RAW_LOG = 'raw';

/** The appliance's time zone: extracted times are read in it when a configuration names none. */
export const appliancesZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** What engine/parse compiles from a stored configuration. */
export function parseConfigOf(record: LogConfigRecord): LogParseConfig {
  return {
    id: record.id,
    name: record.name,
    templateType: record.templateType,
    time: record.time,
    timezone: record.timezone,
    fields: record.fields,
    keyFields: record.keyFields,
    intelligence: record.intelligence,
  };
}

const problem = (field: string, code: string, message: string): FieldProblem => ({
  field,
  message,
  params: { code },
});

/**
 * Log configurations (spec 2.2): the access ones made with each site (view and copy only) and the
 * custom TCP and BROKER ones operators make. Every save compiles the configuration's parser, so a
 * configuration that is stored is one that parses; TCP configurations carry their own certificate
 * bundle (engine/intake), replaced when regenerated.
 */
export class LogConfigsService {
  readonly #deps: LogConfigsDeps;
  readonly #random: Random;
  #parsers = new Map<string, { record: LogConfigRecord; parser: LogParser }>();

  constructor(deps: LogConfigsDeps) {
    this.#deps = deps;
    this.#random = deps.random ?? cryptoRandom;
  }

  list(): readonly LogConfigRecord[] {
    return this.#deps.store.data.logConfigs;
  }

  get(id: string): LogConfigRecord {
    const record = this.list().find((c) => c.id === id);
    if (!record) throw new RampartError('NOT_FOUND', 'log configuration not found');
    return record;
  }

  /** The compiled parser of a custom configuration (compiled again only when the configuration changed). */
  parser(id: string): LogParser | undefined {
    const record = this.list().find((c) => c.id === id);
    if (record === undefined || record.kind === 'access') return undefined;
    const cached = this.#parsers.get(id);
    if (cached && cached.record === record) return cached.parser;
    const compiled = compileParser(parseConfigOf(record));
    if (!compiled.ok) return undefined;
    if (this.#parsers.size > 10_000) this.#parsers = new Map();
    this.#parsers.set(id, { record, parser: compiled.value });
    return compiled.value;
  }

  /** The fields a log is indexed on besides the store's own: its configuration's key fields. */
  keyFieldsOfLog(log: string): readonly string[] {
    if (!log.startsWith('custom:')) return [];
    const record = this.list().find((c) => c.id === log.slice('custom:'.length));
    return record ? [...new Set(Object.values(record.keyFields).filter((f): f is string => !!f))] : [];
  }

  async create(input: LogConfigInput): Promise<LogConfigRecord> {
    const now = this.#deps.clock.now();
    const id = newId('log', this.#random);
    const record: LogConfigRecord = {
      ...this.#fromInput(input, null),
      id,
      kind: 'custom',
      siteId: null,
      certificate: null,
      createdAt: now,
      updatedAt: now,
    };
    this.#check(record);
    if (record.method === 'tcp') record.certificate = this.#certificate(record);
    return this.#deps.store.update((doc) => {
      this.#checkUniqueName(doc.logConfigs, record.name, id);
      doc.logConfigs.push(record);
      return record;
    });
  }

  /**
   * Replaces a custom configuration. Spec 2.2: existing field areas cannot change and none can be
   * added; the method stays what it was (a TCP configuration keeps its certificate).
   */
  async update(id: string, input: LogConfigInput): Promise<LogConfigRecord> {
    const existing = this.get(id);
    if (existing.kind === 'access') {
      throw validationFailed([
        problem('id', 'log_config_read_only', 'an access log configuration can be viewed and copied, not changed'),
      ]);
    }
    const record: LogConfigRecord = {
      ...existing,
      ...this.#fromInput(input, existing),
      updatedAt: this.#deps.clock.now(),
    };
    const problems: FieldProblem[] = [];
    if (record.method !== existing.method)
      problems.push(problem('method', 'method_locked', 'cannot change once the configuration is saved'));
    if (!isDeepStrictEqual(record.fields, existing.fields)) {
      problems.push(
        problem('fields', 'fields_locked', 'existing field areas cannot change and none can be added in an edit'),
      );
    }
    if (problems.length > 0) throw validationFailed(problems);
    this.#check(record);
    return this.#deps.store.update((doc) => {
      this.#checkUniqueName(doc.logConfigs, record.name, id);
      const index = doc.logConfigs.findIndex((c) => c.id === id);
      if (index < 0) throw new RampartError('NOT_FOUND', 'log configuration not found');
      doc.logConfigs[index] = record;
      return record;
    });
  }

  async remove(id: string): Promise<void> {
    const existing = this.get(id);
    if (existing.kind === 'access') {
      throw validationFailed([
        problem('id', 'log_config_read_only', 'an access log configuration goes with its site: delete the site'),
      ]);
    }
    await this.#deps.store.update((doc) => {
      doc.logConfigs = doc.logConfigs.filter((c) => c.id !== id);
    });
  }

  /**
   * A copy under a new name. An access log configuration's copy is a custom TCP configuration
   * reading the access log's JSON fields (spec 2.2); a TCP copy gets its own certificate.
   */
  async copy(id: string, name?: string): Promise<LogConfigRecord> {
    const source = this.get(id);
    const copyName =
      name?.trim().slice(0, 64) ||
      copyNameOf(
        source.name,
        this.list().map((c) => c.name),
        64,
      );
    const now = this.#deps.clock.now();
    const record: LogConfigRecord = {
      ...structuredClone(source),
      id: newId('log', this.#random),
      name: copyName,
      kind: source.kind === 'access' ? 'custom' : source.kind,
      siteId: source.kind === 'access' ? null : source.siteId,
      method: source.method ?? 'tcp',
      certificate: null,
      createdAt: now,
      updatedAt: now,
    };
    if (source.kind === 'access') {
      record.fields = [
        { kind: 'json', name: 'src_ip', source: 'src_ip', type: 'string', required: true },
        { kind: 'json', name: 'fingerprint', source: 'fingerprint', type: 'string', required: false },
        { kind: 'json', name: 'user_agent', source: 'user_agent', type: 'string', required: false },
        { kind: 'json', name: 'request', source: 'request', type: 'string', required: false },
        { kind: 'json', name: 'status', source: 'status', type: 'integer', required: false },
        { kind: 'json', name: 'hostname', source: 'hostname', type: 'string', required: false },
      ];
      record.timezone = this.#deps.defaultTimezone ?? appliancesZone();
    }
    this.#check(record);
    if (record.method === 'tcp') record.certificate = this.#certificate(record);
    return this.#deps.store.update((doc) => {
      this.#checkUniqueName(doc.logConfigs, record.name, record.id);
      doc.logConfigs.push(record);
      return record;
    });
  }

  /** A new CA and client certificate: the old bundle is refused from now on. */
  async regenerateCertificate(id: string): Promise<LogConfigRecord> {
    const existing = this.get(id);
    if (existing.method !== 'tcp') {
      throw validationFailed([problem('id', 'certificate_tcp_only', 'only a TCP configuration has a certificate')]);
    }
    const certificate = this.#certificate(existing);
    return this.#deps.store.update((doc) => {
      const record = doc.logConfigs.find((c) => c.id === id);
      if (!record) throw new RampartError('NOT_FOUND', 'log configuration not found');
      record.certificate = certificate;
      record.updatedAt = this.#deps.clock.now();
      return record;
    });
  }

  /** The "download certificate" zip of a TCP configuration, naming where senders reach the intake. */
  bundle(id: string, intake: { host: string; port: number }): Buffer {
    const record = this.get(id);
    if (record.method !== 'tcp' || record.certificate === null) {
      throw validationFailed([problem('id', 'certificate_tcp_only', 'only a TCP configuration has a certificate')]);
    }
    return certificateBundle(
      {
        ...record.certificate,
        configId: record.id,
        configName: record.name,
      },
      { host: intake.host, port: intake.port, templateType: record.templateType },
    );
  }

  #fromInput(
    input: LogConfigInput,
    existing: LogConfigRecord | null,
  ): Omit<LogConfigRecord, 'id' | 'kind' | 'siteId' | 'certificate' | 'createdAt' | 'updatedAt'> {
    const broker =
      input.method === 'broker' && input.broker
        ? {
            address: input.broker.address.trim(),
            topic: input.broker.topic,
            account: input.broker.account,
            // Absent on update: the stored password stays (the console never receives it).
            password: input.broker.password ?? existing?.broker?.password ?? '',
            mechanism: input.broker.mechanism,
            tls: input.broker.tls,
            ca: input.broker.tls ? input.broker.ca.trim() : '',
          }
        : null;
    return {
      name: input.name.trim(),
      method: input.method,
      broker,
      templateType: input.templateType,
      time: structuredClone(input.time),
      timezone: input.timezone ?? existing?.timezone ?? this.#deps.defaultTimezone ?? appliancesZone(),
      fields: structuredClone(input.fields),
      keyFields: Object.fromEntries(Object.entries(input.keyFields).filter(([, v]) => !!v)),
      intelligence: input.intelligence,
      sampleData: input.sampleData,
    };
  }

  /** The configuration compiles to a parser and its brokers may be reached: every problem at once. */
  #check(record: LogConfigRecord): void {
    const compiled = compileParser(parseConfigOf(record));
    const problems: FieldProblem[] = compiled.ok ? [] : [...compiled.error];
    const brokers =
      record.broker?.address
        .split(',')
        .map((b) => b.trim())
        .filter(Boolean) ?? [];
    if (record.method === 'broker' && this.#deps.brokersAllowed && !this.#deps.brokersAllowed(brokers)) {
      problems.push(
        problem(
          'broker.address',
          'broker_not_allowed',
          'is not among the addresses this appliance may connect to (RAMPART_KAFKA_BROKERS_ALLOWED)',
        ),
      );
    }
    const ca = record.broker?.ca ?? '';
    if (ca !== '') {
      const problem_ = caProblem(ca);
      if (problem_ !== null) problems.push(problem('broker.ca', 'ca_invalid', problem_));
    }
    if (problems.length > 0) throw validationFailed(problems);
  }

  #certificate(record: LogConfigRecord): NonNullable<LogConfigRecord['certificate']> {
    const now = this.#deps.clock.now();
    const bundle = issueBundle({ configId: record.id, configName: record.name, now });
    return {
      caCertPem: bundle.caCertPem,
      caKeyPem: bundle.caKeyPem,
      clientCertPem: bundle.clientCertPem,
      clientKeyPem: bundle.clientKeyPem,
      fingerprint: bundle.fingerprint,
      serial: bundle.serial,
      notAfter: bundle.notAfter,
      issuedAt: now,
    };
  }

  #checkUniqueName(configs: readonly LogConfigRecord[], name: string, id: string): void {
    if (configs.some((c) => c.id !== id && c.name === name)) {
      throw new RampartError('NAME_TAKEN', `name: a log configuration named "${name}" already exists`, {
        field: 'name',
      });
    }
  }
}

/** Why a CA bundle is not one (null when each of its PEM blocks is a certificate that parses). */
function caProblem(pem: string): string | null {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return 'must hold PEM certificates (-----BEGIN CERTIFICATE-----)';
  for (const [i, block] of blocks.entries()) {
    try {
      new X509Certificate(block);
    } catch {
      return `certificate ${i + 1} cannot be read`;
    }
  }
  return null;
}
