import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ConfigStore,
  CONFIG_FILE_NAME,
  ENVELOPE_V1,
  SECRET_KEY_FILE_NAME,
  SecretBox,
  isSealed,
  loadSecretKey,
} from '#engine/config-store';
import { ManualClock, isRampartError } from '#engine/shared';

let dir: string;
const clock = new ManualClock();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rampart-secrets-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('secret envelope', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals a value into a versioned envelope that opens to the same value', () => {
    const sealed = box.seal('kafka-pässword', 'logConfigs.broker.password');
    expect(sealed.startsWith(ENVELOPE_V1)).toBe(true);
    expect(sealed).not.toContain('kafka');
    expect(box.open(sealed, 'logConfigs.broker.password')).toBe('kafka-pässword');
  });

  it('seals the same value differently each time (a fresh IV per value)', () => {
    expect(box.seal('same', 'x')).not.toBe(box.seal('same', 'x'));
  });

  it('refuses an envelope whose ciphertext was altered', () => {
    const sealed = box.seal('a secret of some length', 'x');
    const raw = Buffer.from(sealed.slice(ENVELOPE_V1.length), 'base64');
    raw[raw.length - 1] = (raw[raw.length - 1] ?? 0) ^ 1;
    expect(box.open(ENVELOPE_V1 + raw.toString('base64'), 'x')).toBeUndefined();
  });

  it('refuses an envelope moved into another kind of field', () => {
    expect(box.open(box.seal('v', 'logConfigs.broker.password'), 'secrets.tokenKey')).toBeUndefined();
  });

  it('refuses an envelope sealed with another key', () => {
    expect(new SecretBox(randomBytes(32)).open(box.seal('v', 'x'), 'x')).toBeUndefined();
  });

  it('refuses a truncated envelope and a value that is not one', () => {
    expect(box.open(`${ENVELOPE_V1}AAAA`, 'x')).toBeUndefined();
    expect(box.open('plain', 'x')).toBeUndefined();
    expect(isSealed('plain')).toBe(false);
  });
});

describe('secret key file', () => {
  it('is made with mode 0600 when asked to and read back the same', async () => {
    const file = join(dir, 'k', SECRET_KEY_FILE_NAME);
    const key = await loadSecretKey(file, true);
    expect(key).toHaveLength(32);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await loadSecretKey(file, false)).equals(key)).toBe(true);
  });

  it('is a CONFIG_CORRUPT error when missing and not to be made, or malformed', async () => {
    const file = join(dir, SECRET_KEY_FILE_NAME);
    await expect(loadSecretKey(file, false)).rejects.toSatisfy(
      (e: unknown) => isRampartError(e) && e.code === 'CONFIG_CORRUPT' && e.message.includes('missing'),
    );
    await writeFile(file, 'not a key');
    await expect(loadSecretKey(file, true)).rejects.toSatisfy(
      (e: unknown) => isRampartError(e) && e.code === 'CONFIG_CORRUPT',
    );
  });
});

describe('config store secrets at rest', () => {
  it('writes the signing key and Access Key sealed and gives them plain in memory', async () => {
    const store = await ConfigStore.open(dir, clock);
    const text = await readFile(join(dir, CONFIG_FILE_NAME), 'utf8');
    expect(text).not.toContain(store.data.secrets.tokenKey);
    expect(text).not.toContain(store.data.siteGlobal.accessKey);
    const onDisk = JSON.parse(text) as { secrets: { tokenKey: string } };
    expect(isSealed(onDisk.secrets.tokenKey)).toBe(true);
    const reopened = await ConfigStore.open(dir, clock);
    expect(reopened.data.secrets.tokenKey).toBe(store.data.secrets.tokenKey);
  });

  it('keeps the key apart when told another key file', async () => {
    const keyFile = join(dir, 'elsewhere', 'rampart.key');
    const data = join(dir, 'data');
    await ConfigStore.open(data, clock, { secretKeyFile: keyFile });
    await expect(stat(join(data, SECRET_KEY_FILE_NAME))).rejects.toThrow();
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    await expect(ConfigStore.open(data, clock, { secretKeyFile: keyFile })).resolves.toBeDefined();
  });

  it('refuses to open with a wrong key and leaves the file as it was', async () => {
    await ConfigStore.open(dir, clock);
    const before = await readFile(join(dir, CONFIG_FILE_NAME), 'utf8');
    await writeFile(join(dir, SECRET_KEY_FILE_NAME), `${randomBytes(32).toString('base64')}\n`);
    await expect(ConfigStore.open(dir, clock)).rejects.toSatisfy(
      (e: unknown) => isRampartError(e) && e.code === 'CONFIG_CORRUPT' && e.message.includes('does not open'),
    );
    expect(await readFile(join(dir, CONFIG_FILE_NAME), 'utf8')).toBe(before);
  });

  it('refuses to open sealed secrets without the key file and does not make a new one', async () => {
    await ConfigStore.open(dir, clock);
    await rm(join(dir, SECRET_KEY_FILE_NAME));
    await expect(ConfigStore.open(dir, clock)).rejects.toSatisfy(
      (e: unknown) => isRampartError(e) && e.code === 'CONFIG_CORRUPT' && e.message.includes('missing'),
    );
    await expect(stat(join(dir, SECRET_KEY_FILE_NAME))).rejects.toThrow();
  });

  it('seals the secrets of a schema-8 data folder on first start (migration)', async () => {
    const store = await ConfigStore.open(dir, clock);
    const plain = structuredClone(store.data) as unknown as Record<string, unknown>;
    plain.schemaVersion = 8;
    await rm(join(dir, SECRET_KEY_FILE_NAME));
    await writeFile(join(dir, CONFIG_FILE_NAME), JSON.stringify(plain));
    const migrated = await ConfigStore.open(dir, clock);
    expect(migrated.data.secrets.tokenKey).toBe(store.data.secrets.tokenKey);
    for (const name of [CONFIG_FILE_NAME, `${CONFIG_FILE_NAME}.bak`]) {
      const text = await readFile(join(dir, name), 'utf8');
      expect(text, name).not.toContain(store.data.secrets.tokenKey);
      expect(text, name).not.toContain(store.data.siteGlobal.accessKey);
    }
  });
});
