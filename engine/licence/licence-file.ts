import forge from 'node-forge';
import { z } from 'zod';
import { MODULES, RampartError } from '#engine/shared';

/**
 * A licence file is JSON: `{"format":"rampart-licence/1","payload":"<base64 JSON>","signature":
 * "<base64>"}`. The signature is RSA PKCS#1 v1.5 over SHA-256 of the payload bytes, made with the
 * vendor's private key; the appliance holds only the public key.
 */
export const LICENCE_FORMAT = 'rampart-licence/1';
export const MAX_LICENCE_BYTES = 64 * 1024;

const isoDate = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).or(z.iso.date());

export const licencePayloadSchema = z
  .object({
    enterpriseId: z.string().min(1).max(64),
    customerName: z.string().min(1).max(200),
    issuedAt: isoDate,
    modules: z.array(z.object({ module: z.enum(MODULES), expiresAt: isoDate }).strict()).max(MODULES.length),
    purchases: z
      .array(
        z
          .object({
            orderTime: isoDate,
            orderNumber: z.string().min(1).max(64),
            product: z.string().min(1).max(200),
            expiresAt: isoDate,
            status: z.string().min(1).max(64),
            remark: z.string().max(500).default(''),
          })
          .strict(),
      )
      .max(500),
  })
  .strict();

export type LicencePayload = z.infer<typeof licencePayloadSchema>;

const envelopeSchema = z
  .object({
    format: z.literal(LICENCE_FORMAT, { error: `must be "${LICENCE_FORMAT}"` }),
    payload: z.base64({ error: 'must be base64' }),
    signature: z.base64({ error: 'must be base64' }),
  })
  .strict();

export function signLicence(payload: LicencePayload, privateKeyPem: string): string {
  const checked = licencePayloadSchema.parse(payload);
  const bytes = Buffer.from(JSON.stringify(checked), 'utf8');
  const key = forge.pki.privateKeyFromPem(privateKeyPem);
  const md = forge.md.sha256.create();
  md.update(bytes.toString('binary'), 'raw');
  const signature = forge.util.encode64(key.sign(md));
  return JSON.stringify({ format: LICENCE_FORMAT, payload: bytes.toString('base64'), signature }, null, 2) + '\n';
}

/** Parses and verifies a licence file; any defect is a RampartError saying which. */
export function verifyLicence(text: string, publicKeyPem: string): LicencePayload {
  if (Buffer.byteLength(text) > MAX_LICENCE_BYTES) {
    throw new RampartError('LICENCE_MALFORMED', `content: a licence file is at most ${MAX_LICENCE_BYTES} bytes`, {
      field: 'content',
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new RampartError('LICENCE_MALFORMED', 'content: is not a Rampart licence file (not JSON)', {
      field: 'content',
    });
  }
  const envelope = envelopeSchema.safeParse(raw);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    throw new RampartError(
      'LICENCE_MALFORMED',
      `content: ${issue?.path.join('.') || 'file'} ${issue?.message ?? 'is invalid'}`,
      {
        field: 'content',
      },
    );
  }
  const bytes = Buffer.from(envelope.data.payload, 'base64');
  let valid: boolean;
  try {
    const key = forge.pki.publicKeyFromPem(publicKeyPem);
    const md = forge.md.sha256.create();
    md.update(bytes.toString('binary'), 'raw');
    valid = key.verify(md.digest().bytes(), forge.util.decode64(envelope.data.signature));
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new RampartError(
      'LICENCE_SIGNATURE_INVALID',
      'content: the licence signature does not match the vendor key',
      {
        field: 'content',
      },
    );
  }
  let payloadRaw: unknown;
  try {
    payloadRaw = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RampartError('LICENCE_MALFORMED', 'content: the signed payload is not JSON', { field: 'content' });
  }
  const payload = licencePayloadSchema.safeParse(payloadRaw);
  if (!payload.success) {
    const issue = payload.error.issues[0];
    throw new RampartError(
      'LICENCE_MALFORMED',
      `content: payload.${issue?.path.join('.') ?? ''} ${issue?.message ?? 'is invalid'}`,
      {
        field: 'content',
      },
    );
  }
  return payload.data;
}

export function generateVendorKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const pair = forge.pki.rsa.generateKeyPair({ bits: 2048, e: 0x10001 });
  return {
    privateKeyPem: forge.pki.privateKeyToPem(pair.privateKey),
    publicKeyPem: forge.pki.publicKeyToPem(pair.publicKey),
  };
}
