/**
 * Secrets never reach the audit log: before and after snapshots pass through `maskSecrets`, which
 * replaces the value of every field named like a secret, and every string that holds a PEM private
 * key whatever its field is called.
 */

/** What a masked value reads as. An empty secret stays empty, so "not set" stays visible. */
export const MASK = '[masked]';

/**
 * Field names whose values are secrets, compared without case, `_` and `-`: the account's
 * password hash, the Access Key, the SMTP and broker passwords, certificate bundles' private keys,
 * the engine's signing keys, session and CSRF tokens, link token hashes.
 */
export const SECRET_FIELD_NAMES: readonly string[] = [
  'password',
  'passwordHash',
  'passphrase',
  'accessKey',
  'secret',
  'secrets',
  'tokenKey',
  'token',
  'tokenHash',
  'recoveryCodeHashes',
  'csrfToken',
  'deviceToken',
  'privateKey',
  'privateKeyPem',
  'keyPem',
  'caKeyPem',
  'clientKeyPem',
  'serverKeyPem',
  'apiKey',
  'authorization',
  'cookie',
  'smtpPassword',
  'brokerPassword',
];

/** Endings that make a field a secret too (`smtp_password`, `webhookSecret`, `sessionToken`, `tlsKeyPem`). */
const SECRET_SUFFIXES = ['password', 'passphrase', 'secret', 'token', 'tokenhash', 'keypem', 'privatekey', 'accesskey'];

const normalise = (name: string): string => name.toLowerCase().replace(/[-_]/g, '');
const SECRET_NAMES: ReadonlySet<string> = new Set(SECRET_FIELD_NAMES.map(normalise));

/** Whether a field of this name holds a secret (or, named in the plural, a list of them). */
export function isSecretField(name: string): boolean {
  const plural = normalise(name);
  const n = plural.endsWith('s') ? plural.slice(0, -1) : plural;
  return SECRET_NAMES.has(plural) || SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((suffix) => n.endsWith(suffix));
}

const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;

/** Longest string kept in a snapshot; longer ones (a block page's HTML) are cut and say how long they were. */
export const MAX_STRING = 4096;
/** Deepest nesting kept; deeper values read as `[nested]` (configuration objects are far shallower). */
const MAX_DEPTH = 12;

function maskString(value: string): string {
  if (PRIVATE_KEY.test(value)) return MASK;
  return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… (${value.length} characters)` : value;
}

function maskValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return maskString(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.map((item) => maskValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = isSecretField(key) ? maskSecret(item) : maskValue(item, depth + 1);
  }
  return out;
}

/** A secret field's value: MASK unless it is empty (null, '', absent), so "set" and "not set" still show. */
function maskSecret(value: unknown): unknown {
  if (value === undefined || value === null || value === '') return value;
  return MASK;
}

/**
 * A copy of `value` with secrets masked (by field name, and PEM private keys by content) and
 * overlong strings cut. Plain JSON data in, plain JSON data out; the input is not changed.
 */
export function maskSecrets<T>(value: T): T {
  return maskValue(value, 0) as T;
}
