import { mkdtemp, readFile, rm, writeFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore, CONFIG_FILE_NAME, SCHEMA_VERSION, migrate } from '#engine/config-store';
import { ManualClock } from '#engine/shared';

let dir: string;
const clock = new ManualClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-config-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('config store', () => {
  it('creates a document with the current schema version on first open', async () => {
    const store = await ConfigStore.open(dir, clock);
    expect(store.data.schemaVersion).toBe(SCHEMA_VERSION);
    const onDisk = JSON.parse(await readFile(join(dir, CONFIG_FILE_NAME), 'utf8')) as { installation: { id: string } };
    expect(onDisk.installation.id).toBe(store.data.installation.id);
  });

  it('persists updates and keeps the previous generation as .bak', async () => {
    const store = await ConfigStore.open(dir, clock);
    await store.update((d) => void d.audit.push({ at: 1, actorId: null, action: 'one', targetId: null }));
    await store.update((d) => void d.audit.push({ at: 2, actorId: null, action: 'two', targetId: null }));
    const reopened = await ConfigStore.open(dir, clock);
    expect(reopened.data.audit.map((a) => a.action)).toEqual(['one', 'two']);
    const backup = JSON.parse(await readFile(join(dir, `${CONFIG_FILE_NAME}.bak`), 'utf8')) as { audit: unknown[] };
    expect(backup.audit).toHaveLength(1);
  });

  it('applies concurrent updates one after the other', async () => {
    const store = await ConfigStore.open(dir, clock);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update((d) => void d.audit.push({ at: i, actorId: null, action: `n${i}`, targetId: null })),
      ),
    );
    expect((await ConfigStore.open(dir, clock)).data.audit).toHaveLength(20);
  });

  it('leaves memory unchanged when an update throws', async () => {
    const store = await ConfigStore.open(dir, clock);
    await expect(
      store.update((d) => {
        d.audit.push({ at: 1, actorId: null, action: 'half', targetId: null });
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(store.data.audit).toHaveLength(0);
  });

  it('falls back to the previous generation when the main file is gone', async () => {
    const store = await ConfigStore.open(dir, clock);
    await store.update((d) => void d.audit.push({ at: 1, actorId: null, action: 'kept', targetId: null }));
    await store.update((d) => void d.audit.push({ at: 2, actorId: null, action: 'lost', targetId: null }));
    await unlink(join(dir, CONFIG_FILE_NAME));
    expect((await ConfigStore.open(dir, clock)).data.audit.map((a) => a.action)).toEqual(['kept']);
  });

  it('reports a corrupt file instead of starting empty over it', async () => {
    await writeFile(join(dir, CONFIG_FILE_NAME), '{"schemaVersion": 1, "accou');
    await expect(ConfigStore.open(dir, clock)).rejects.toMatchObject({ code: 'CONFIG_CORRUPT' });
  });

  it('refuses a document from a newer Rampart', async () => {
    await writeFile(join(dir, CONFIG_FILE_NAME), JSON.stringify({ schemaVersion: SCHEMA_VERSION + 1 }));
    await expect(ConfigStore.open(dir, clock)).rejects.toThrow(/newer Rampart/);
  });
});

describe('migrations', () => {
  it('run in order from the stored version up to the target one', () => {
    const steps = {
      1: (d: Record<string, unknown>) => ({ ...d, trail: [...(d.trail as string[]), 'from 1'] }),
      2: (d: Record<string, unknown>) => ({ ...d, trail: [...(d.trail as string[]), 'from 2'] }),
    };
    const { doc, migrated } = migrate({ schemaVersion: 1, trail: [] }, steps, 3);
    expect(migrated).toBe(true);
    expect(doc.schemaVersion).toBe(3);
    expect((doc as unknown as { trail: string[] }).trail).toEqual(['from 1', 'from 2']);
  });

  it('give a version-4 document 30 days of retention for every log kind (4 -> 5)', () => {
    const { doc } = migrate({ schemaVersion: 4, accounts: [], gateway: { advertisedAddress: '' } }, undefined, 5);
    expect(doc.schemaVersion).toBe(5);
    expect(doc.storage.retentionDays).toMatchObject({
      access: 30,
      detection: 30,
      probe: 30,
      messaging: 30,
      raw: 30,
      custom: 30,
      trigger: 30,
    });
  });

  it('give a version-5 access log configuration every field of a log configuration, keeping its key fields (5 -> 6)', () => {
    const { doc } = migrate(
      {
        schemaVersion: 5,
        accounts: [],
        logConfigs: [
          {
            id: 'log_1',
            name: 'Shop access log',
            kind: 'access',
            siteId: 'site_1',
            keyFields: { ip: 'src_ip', device: 'fingerprint' },
            createdAt: 7,
          },
        ],
      },
      undefined,
      6,
    );
    expect(doc.schemaVersion).toBe(6);
    expect(doc.intake).toBeNull();
    expect(doc.logConfigs).toEqual([
      {
        id: 'log_1',
        name: 'Shop access log',
        kind: 'access',
        siteId: 'site_1',
        method: null,
        broker: null,
        templateType: 'json',
        time: { mode: 'current' },
        timezone: 'UTC',
        fields: [],
        keyFields: { ip: 'src_ip', device: 'fingerprint' },
        intelligence: true,
        sampleData: '',
        certificate: null,
        createdAt: 7,
        updatedAt: 7,
      },
    ]);
  });

  it('give a version-6 document the preset events (disabled, without a log source), no rules and empty global lists (6 -> 7)', () => {
    const { doc } = migrate({ schemaVersion: 6, accounts: [], logConfigs: [] }, undefined, 7);
    expect(doc.schemaVersion).toBe(7);
    expect(doc.rules).toEqual([]);
    expect(doc.ipLists).toEqual({ pass: [], block: [] });
    expect(doc.events.length).toBeGreaterThanOrEqual(8);
    expect(doc.events.every((e) => e.preset && !e.enabled && e.sources.length === 0)).toBe(true);
    expect(doc.events.map((e) => e.kind)).toEqual(expect.arrayContaining(['simple', 'count', 'distinct', 'cep']));
  });

  it('keep the audit log a year in a version-7 document, leaving the other kinds as set (7 -> 8)', () => {
    const retentionDays = { access: 7, detection: 30, probe: 30, messaging: 30, raw: 30, custom: 30, trigger: 90 };
    const { doc } = migrate({ schemaVersion: 7, accounts: [], storage: { retentionDays } }, undefined, 8);
    expect(doc.schemaVersion).toBe(8);
    expect(doc.storage.retentionDays).toEqual({ ...retentionDays, audit: 365 });
  });

  it('give a version-9 document no console certificate, default administration settings and no second factors (9 -> 10)', () => {
    const { doc } = migrate({ schemaVersion: 9, accounts: [{ id: 'acc_1', email: 'a@b.c' }] }, undefined, 10);
    expect(doc.schemaVersion).toBe(10);
    expect(doc.consoleTls).toBeNull();
    expect(doc.admin).toEqual({ smtp: null, session: null, ports: {}, requireTwoFactorForAdmins: false });
    expect(doc.accounts).toEqual([{ id: 'acc_1', email: 'a@b.c', twoFactor: null }]);
  });

  it('leave a current document alone', () => {
    expect(migrate({ schemaVersion: SCHEMA_VERSION, accounts: [] }).migrated).toBe(false);
  });

  it('refuse a document without a valid version or a missing step', () => {
    expect(() => migrate({ schemaVersion: 0 })).toThrow(/schemaVersion/);
    expect(() => migrate([])).toThrow(/JSON object/);
    expect(() => migrate({ schemaVersion: 1 }, {}, 2)).toThrow(/No migration from schema version 1/);
  });
});
