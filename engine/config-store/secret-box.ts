import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, readFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RampartError } from '#engine/shared';

/** The file name of the secret key beside the configuration, unless the engine is told another path. */
export const SECRET_KEY_FILE_NAME = 'secret.key';

/** A sealed value: `enc:v1:` then base64 of IV (12 bytes), GCM tag (16 bytes) and ciphertext. */
export const ENVELOPE_V1 = 'enc:v1:';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ENVELOPE_V1);
}

/**
 * AES-256-GCM per value. `label` names the kind of field (`broker.password`) and is the additional
 * data, so a sealed value moved into another kind of field does not open.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new RangeError(`a secret key is ${KEY_BYTES} bytes, not ${key.length}`);
    this.#key = Buffer.from(key);
  }

  seal(plain: string, label: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(label, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ENVELOPE_V1 + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** The plain value, or undefined when the envelope is damaged or was sealed with another key or label. */
  open(sealed: string, label: string): string | undefined {
    if (!isSealed(sealed)) return undefined;
    const raw = Buffer.from(sealed.slice(ENVELOPE_V1.length), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(label, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/**
 * Reads the secret key (base64 of 32 bytes). When the file does not exist and `create` is true, a
 * new key is written there with mode 0600 (never over an existing file); otherwise a missing or
 * malformed key is a CONFIG_CORRUPT error saying what to do.
 */
export async function loadSecretKey(file: string, create: boolean): Promise<Buffer> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') {
      throw new RampartError('CONFIG_CORRUPT', `The secret key file ${file} cannot be read: ${String(error)}.`, {
        cause: error,
        params: { path: file },
      });
    }
    if (!create) {
      throw new RampartError(
        'CONFIG_CORRUPT',
        `The configuration holds encrypted secrets but the secret key file ${file} is missing. Put back the key file this data folder was made with (a backup archive holds it), or point RAMPART_SECRET_KEY_FILE at it.`,
        { params: { path: file, reason: 'secret_key_missing' } },
      );
    }
    const key = randomBytes(KEY_BYTES);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    const handle = await open(file, 'wx', 0o600);
    try {
      await handle.writeFile(`${key.toString('base64')}\n`, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    return key;
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES || key.toString('base64') !== text.trim()) {
    throw new RampartError(
      'CONFIG_CORRUPT',
      `The secret key file ${file} does not hold a key (base64 of ${KEY_BYTES} bytes). Put back the key file this data folder was made with.`,
      { params: { path: file, reason: 'secret_key_malformed' } },
    );
  }
  return key;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);
const recs = (v: unknown): Rec[] => (Array.isArray(v) ? v.filter(isRec) : []);

/**
 * Every secret the document stores, by the kind of field (the label) and where it sits. Password
 * hashes and link-token hashes are not here: they are not secrets to keep. Written against the raw
 * JSON so it works on documents of any schema version, before and after migration.
 */
function secretSlots(doc: Rec): { label: string; owner: Rec; key: string }[] {
  const slots: { label: string; owner: Rec; key: string }[] = [];
  const add = (label: string, owner: unknown, key: string): void => {
    if (isRec(owner) && typeof owner[key] === 'string') slots.push({ label, owner, key });
  };
  add('secrets.tokenKey', doc.secrets, 'tokenKey');
  add('siteGlobal.accessKey', doc.siteGlobal, 'accessKey');
  for (const site of recs(doc.sites)) add('sites.certificate.keyPem', site.certificate, 'keyPem');
  for (const log of recs(doc.logConfigs)) {
    add('logConfigs.broker.password', log.broker, 'password');
    add('logConfigs.certificate.caKeyPem', log.certificate, 'caKeyPem');
    add('logConfigs.certificate.clientKeyPem', log.certificate, 'clientKeyPem');
  }
  add('intake.serverKeyPem', doc.intake, 'serverKeyPem');
  if (isRec(doc.consoleTls)) {
    add('consoleTls.ca.keyPem', doc.consoleTls.ca, 'keyPem');
    add('consoleTls.keyPem', doc.consoleTls, 'keyPem');
  }
  if (isRec(doc.admin)) add('admin.smtp.password', doc.admin.smtp, 'password');
  for (const account of recs(doc.accounts)) add('accounts.twoFactor.secret', account.twoFactor, 'secret');
  for (const rule of recs(doc.rules)) {
    const notify = rule.notify;
    if (isRec(notify)) add('rules.notify.webhook.secret', notify.webhook, 'secret');
  }
  return slots;
}

/** Whether any secret of the raw document is sealed. */
export function hasSealedSecrets(doc: unknown): boolean {
  return isRec(doc) && secretSlots(doc).some((s) => isSealed(s.owner[s.key]));
}

/** Whether any non-empty secret of the raw document is in clear (a file from before schema 9, or edited). */
export function hasPlainSecrets(doc: unknown): boolean {
  return isRec(doc) && secretSlots(doc).some((s) => s.owner[s.key] !== '' && !isSealed(s.owner[s.key]));
}

/** A copy of the document with every non-empty secret sealed (what goes to disk). */
export function sealSecrets<T>(doc: T, box: SecretBox): T {
  const copy = structuredClone(doc);
  if (!isRec(copy)) return copy;
  for (const { label, owner, key } of secretSlots(copy)) {
    const value = owner[key] as string;
    if (value !== '' && !isSealed(value)) owner[key] = box.seal(value, label);
  }
  return copy;
}

/**
 * Opens every sealed secret of the raw document in place. Plain values are left (a document from
 * before encryption, or one edited by hand: sealed at the next write). A value that does not open is
 * a CONFIG_CORRUPT error: the key is not the one the file was written with, or the file was altered.
 */
export function openSecrets(doc: unknown, box: SecretBox, keyFile: string): void {
  if (!isRec(doc)) return;
  for (const { label, owner, key } of secretSlots(doc)) {
    const value = owner[key];
    if (!isSealed(value)) continue;
    const plain = box.open(value, label);
    if (plain === undefined) {
      throw new RampartError(
        'CONFIG_CORRUPT',
        `The secret key in ${keyFile} does not open the secrets of the configuration (${label}): it is not the key this data folder was written with, or the file was altered. Put back the right key file (a backup archive holds it); the configuration was left as it is.`,
        { params: { path: keyFile, reason: 'secret_key_wrong', field: label } },
      );
    }
    owner[key] = plain;
  }
}
