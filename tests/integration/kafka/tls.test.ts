/**
 * A BROKER configuration with TLS against a real broker whose certificate a private CA signed (the
 * common case inside a company): with the CA's certificate in the configuration its messages are
 * stored; without it (the system's CAs) it keeps retrying and says the certificate was not
 * trusted; a CA that is not a certificate is refused when saved, naming the field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '#engine/config-store';
import { LogStore } from '#engine/log-store';
import { Intakes, LogConfigsService, LogIngest } from '#engine/log-configs';
import { systemClock, type LogConfigInput } from '#engine/shared';
import { kafkaMissing, startKafkaBroker, type KafkaBroker } from '../../support/kafka-broker.ts';
import { skipAllWithout } from '../../support/skip.ts';
import { connectProducer, createTopic, produceRange, until } from './support.ts';

const reason = kafkaMissing();

/** A CA, and a certificate it signed for the broker at 127.0.0.1 (PKCS#8 key, as Kafka's PEM key store wants). */
function privateCa(): { caPem: string; keyStorePem: string } {
  const caKeys = forge.pki.rsa.generateKeyPair(2048);
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = '01';
  ca.validity.notBefore = new Date(Date.now() - 60_000);
  ca.validity.notAfter = new Date(Date.now() + 86_400_000);
  const caName = [{ name: 'commonName', value: 'Test company CA' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const keys = forge.pki.rsa.generateKeyPair(2048);
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = '02';
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 86_400_000);
  cert.setSubject([{ name: 'commonName', value: 'kafka broker' }]);
  cert.setIssuer(caName);
  cert.setExtensions([
    { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] },
    { name: 'extKeyUsage', serverAuth: true },
  ]);
  cert.sign(caKeys.privateKey, forge.md.sha256.create());
  const key = forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keys.privateKey)));
  return { caPem: forge.pki.certificateToPem(ca), keyStorePem: key + forge.pki.certificateToPem(cert) };
}

/** A json BROKER configuration reading `secure` over TLS at `address`, trusting `ca` (empty: the system's CAs). */
const input = (name: string, address: string, ca: string): LogConfigInput => ({
  name,
  method: 'broker',
  broker: { address, topic: 'secure', account: '', mechanism: 'none', tls: true, ca },
  templateType: 'json',
  time: { mode: 'current' },
  timezone: 'UTC',
  fields: [{ kind: 'json', name: 'seq', source: 'seq', type: 'integer', required: true }],
  keyFields: {},
  intelligence: false,
  sampleData: '',
});

describe('a BROKER configuration over TLS with a private CA', () => {
  skipAllWithout(reason);

  let broker: KafkaBroker | undefined;
  let dir = '';
  let configStore: ConfigStore;
  let store: LogStore;
  let configs: LogConfigsService;
  let intakes: Intakes;
  let caPem = '';

  beforeAll(async () => {
    if (reason !== undefined) return;
    dir = mkdtempSync(join(tmpdir(), 'rampart-kafka-tls-'));
    const ca = privateCa();
    caPem = ca.caPem;
    writeFileSync(join(dir, 'broker.pem'), ca.keyStorePem);
    broker = await startKafkaBroker('4.1.0', { tls: { keyStoreFile: join(dir, 'broker.pem') } });
    configStore = await ConfigStore.open(join(dir, 'config'), systemClock);
    configs = new LogConfigsService({ store: configStore.slice(['logConfigs']), clock: systemClock });
    store = await LogStore.open(join(dir, 'data'));
    const ingest = new LogIngest({ store, configs, clock: systemClock });
    intakes = new Intakes({
      configs,
      ingest,
      store: configStore.slice(['intake']),
      logStore: store,
      clock: systemClock,
      tcp: { host: '127.0.0.1', port: 0 },
      advertisedHost: () => '127.0.0.1',
    });
    await intakes.start();
    await createTopic([broker.address], 'secure');
    const producer = await connectProducer([broker.address]);
    await produceRange(producer, 'secure', 0, 500);
    await producer.disconnect();
  }, 600_000);

  afterAll(async () => {
    await intakes?.close();
    await store?.close();
    await broker?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("stores the topic's messages when the configuration holds the CA's certificate", async () => {
    const config = await configs.create(input('secure orders', broker!.tlsAddress, caPem));
    await intakes.changed();
    await until(
      () => intakes.counts(config).parsed >= 500,
      45_000,
      () => JSON.stringify({ status: intakes.kafkaStatus(config.id), counts: intakes.counts(config) }),
    );
    // A transient error while the group forms is cleared once fetching goes on.
    await until(
      () => intakes.kafkaStatus(config.id).lastError === null,
      20_000,
      () => JSON.stringify(intakes.kafkaStatus(config.id)),
    );
    expect(intakes.kafkaStatus(config.id).state).toBe('connected');
  }, 90_000);

  it('keeps retrying, saying why, when the CA is not given (the system does not trust it)', async () => {
    const config = await configs.create(input('untrusted orders', broker!.tlsAddress, ''));
    await intakes.changed();
    await until(
      () => intakes.kafkaStatus(config.id).lastError !== null,
      60_000,
      () => JSON.stringify(intakes.kafkaStatus(config.id)),
    );
    const status = intakes.kafkaStatus(config.id);
    expect(status.state).not.toBe('connected');
    expect(status.lastError).toMatch(/certificate/i);
    expect(intakes.counts(config).parsed).toBe(0);
  });

  it('refuses a CA that is not a certificate, naming the field', async () => {
    await expect(
      configs.create(
        input(
          'bad ca',
          broker!.tlsAddress,
          '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----',
        ),
      ),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED', field: 'broker.ca', message: 'certificate 1 cannot be read' });
  });
});
